//! The test harness: a temporary project, exact bytes on disk, and real runs of the binary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The tests' own certificate authority, and a certificate it signed for this machine
/// (`localhost`, `127.0.0.1`, `::1`): the test registries serve HTTPS with it, and every
/// command the tests run trusts it through `SKILLPKG_CA_FILE`.
pub(crate) struct TestPki {
    pub(crate) ca: PathBuf,
    pub(crate) cert: PathBuf,
    pub(crate) key: PathBuf,
}

/// The [`TestPki`], made once per test process under cargo's temporary folder for tests.
pub(crate) fn pki() -> &'static TestPki {
    static PKI: OnceLock<TestPki> = OnceLock::new();
    PKI.get_or_init(|| {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let ca_key = KeyPair::generate().unwrap();
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "skillpkg tests' CA");
        let ca_pem = ca.self_signed(&ca_key).unwrap().pem();
        let issuer = Issuer::new(ca, ca_key);
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
        ])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
        let dir = tempfile::Builder::new()
            .prefix("pki-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap()
            // Kept for the whole process: registries started by any test read it.
            .keep();
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            fs_err::write(&path, text).unwrap();
            path
        };
        TestPki {
            ca: write("ca.pem", &ca_pem),
            cert: write("cert.pem", &leaf.pem()),
            key: write("key.pem", &leaf_key.serialize_pem()),
        }
    })
}

/// A temporary folder to write skills into and run `skillpkg` from.
pub(crate) struct TestContext {
    dir: tempfile::TempDir,
}

impl TestContext {
    pub(crate) fn new() -> Self {
        Self {
            dir: tempfile::Builder::new()
                .prefix("skillpkg-test-")
                .tempdir()
                .expect("create a temporary folder"),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `bytes` to `path` (relative to the root), creating folders.
    pub(crate) fn write(&self, path: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let full = self.root().join(path);
        fs_err::create_dir_all(full.parent().expect("a parent folder")).expect("create folders");
        fs_err::write(&full, bytes).expect("write the file");
        full
    }

    /// Writes `dir/SKILL.md`.
    pub(crate) fn skill(&self, dir: &str, text: &str) -> PathBuf {
        self.write(&format!("{dir}/SKILL.md"), text)
    }

    /// `skillpkg ARGS` run from the root, with a stable environment.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(insta_cmd::get_cargo_bin("skillpkg"));
        command
            .args(args)
            .current_dir(self.root())
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR")
            .env_remove("CLICOLOR_FORCE")
            .env_remove("CI")
            .env("COLUMNS", "100");
        command
    }

    /// `skillpkg ARGS` as a registry client: [`TestContext::command`], with downloads cached in
    /// this test's folder, never in the user's cache, and the tests' certificate authority
    /// trusted ([`pki`]). (Not in `command` itself: insta records a command's environment in
    /// each snapshot, where a temp path would change every run.)
    pub(crate) fn client(&self, args: &[&str]) -> Command {
        let mut command = self.command(args);
        command
            .env("SKILLPKG_CACHE_DIR", self.root().join("cache"))
            .env("SKILLPKG_CA_FILE", &pki().ca);
        command
    }

    /// `skillpkg validate ARGS`.
    pub(crate) fn validate(&self, args: &[&str]) -> Command {
        let mut all = vec!["validate"];
        all.extend_from_slice(args);
        self.command(&all)
    }

    /// insta settings that store snapshots in `snapshots/` and hide this run's temp path.
    pub(crate) fn settings(&self) -> insta::Settings {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        let root = self.root().to_string_lossy().into_owned();
        let canonical = fs_err::canonicalize(self.root())
            .map_or_else(|_| root.clone(), |path| path.to_string_lossy().into_owned());
        for path in [canonical, root] {
            settings.add_filter(&regex_escape(&path), "[TEMP]");
        }
        settings.add_filter(
            &regex_escape(concat!("\"", env!("CARGO_PKG_VERSION"), "\"")),
            "\"[VERSION]\"",
        );
        settings
    }
}

/// Runs a command and returns (exit code, stdout, stderr).
pub(crate) fn run(mut command: Command) -> (i32, String, String) {
    let output = command.output().expect("run skillpkg");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Escapes regex metacharacters in a literal.
fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Asserts a snapshot of a real run, under the given name, with the context's filters.
#[macro_export]
macro_rules! snapshot {
    ($context:expr, $name:expr, $command:expr) => {
        $context
            .settings()
            .bind(|| insta_cmd::assert_cmd_snapshot!($name, $command));
    };
}
