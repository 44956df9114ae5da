//! The registry client's stored tokens: a credentials file that is broken or not a file at
//! all, and the modes of what `login` writes.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{Registry, skill};
use crate::common::{TestContext, run};

/// Runs `command`, killing it and failing the test if it is still running after `limit`.
fn run_within(mut command: Command, limit: Duration) -> (i32, String, String, Duration) {
    let start = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?}: {command:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let elapsed = start.elapsed();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed,
    )
}

/// `skillpkg ARGS` against `url`, with its own config folder.
fn against(context: &TestContext, url: &str, args: &[&str]) -> Command {
    let mut command = context.command(args);
    command
        .env("SKILLPKG_REGISTRY", url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join("config"))
        .env("SKILLPKG_TOKEN", "skp_test");
    command
}

/// Generous: a command that takes longer is hanging.
const BOUND: Duration = Duration::from_secs(60);

/// `login` against `registry` with `config` as the config folder.
fn login(context: &TestContext, registry: &Registry, config: &str, token: &str) -> Command {
    let mut command = context.command(&["login"]);
    command
        .env("SKILLPKG_REGISTRY", &registry.url)
        .env("SKILLPKG_CONFIG_DIR", context.root().join(config))
        .env("SKILLPKG_TOKEN", token);
    command
}

#[test]
fn login_keeps_tokens_private_and_never_discards_a_broken_credentials_file() {
    let context = TestContext::new();
    let registry = Registry::start(&context.root().join("data"), &[]);
    let alice = registry.token("alice");

    // A new config folder is the user's alone, as is the file.
    let (code, _, stderr) = run(login(&context, &registry, "fresh/skillpkg", &alice));
    assert_eq!(code, 0, "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |path: &str| {
            fs_err::metadata(context.root().join(path))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("fresh/skillpkg"), 0o700);
        assert_eq!(mode("fresh/skillpkg/credentials.toml"), 0o600);
    }

    // A credentials file that does not parse holds other registries' tokens: keep it.
    let broken = "\"https://other.example\" = \"skp_other\"\noops = [\n";
    let path = context.write("config/credentials.toml", broken);
    let (code, _, stderr) = run(login(&context, &registry, "config", &alice));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&path.display().to_string())
            && stderr.contains("line 2")
            && stderr.contains("will not overwrite it"),
        "{stderr}"
    );
    assert_eq!(fs_err::read_to_string(&path).unwrap(), broken);
}

#[test]
fn a_credentials_file_that_cannot_be_read_is_reported_not_taken_for_no_token() {
    let context = TestContext::new();
    skill(&context, "guarded", "1.0.0", "Guarded.");
    let path = context.root().join("config/credentials.toml");
    // Port 9 on loopback: nothing listens, and the command must fail before trying anyway.
    let publish = || {
        let mut command = against(&context, "http://127.0.0.1:9", &["publish", "work/guarded"]);
        command.env_remove("SKILLPKG_TOKEN");
        command
    };
    let huge = format!(
        "\"http://127.0.0.1:9\" = \"skp_x\"\n{}",
        "# padding\n".repeat(200_000)
    );
    // What the file holds (`None`: a folder stands in its place), and what the error says.
    let cases = [
        (Some("= nonsense\n"), "is broken (line 1"),
        (
            Some("\"http://127.0.0.1:9\" = 7\n"),
            "the token for `http://127.0.0.1:9` is not a string",
        ),
        (Some(huge.as_str()), "is larger than 1 MiB"),
        (None, "is not a regular file"),
    ];
    for (contents, message) in cases {
        if let Some(text) = contents {
            context.write("config/credentials.toml", text);
        } else {
            fs_err::remove_file(&path).unwrap();
            fs_err::create_dir_all(&path).unwrap();
        }
        let (code, _, stderr, _) = run_within(publish(), BOUND);
        assert_eq!(code, 2, "{message}: {stderr}");
        assert!(
            stderr.contains(&path.display().to_string()) && stderr.contains(message),
            "{message}: {stderr}"
        );
        assert!(!stderr.contains("no token"), "{stderr}");
    }
}
