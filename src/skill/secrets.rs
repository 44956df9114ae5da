//! Which files hold secrets, by name: one list that `lint` (which warns about a secret a skill
//! bundles) and `package` (which refuses to pack them) both use.

/// Endings of private keys and certificate stores.
pub(crate) const KEY_EXTENSIONS: [&str; 7] =
    [".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk"];
/// SSH private keys' usual names.
pub(crate) const SSH_KEYS: [&str; 4] = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"];
/// Files that hold credentials by convention.
pub(crate) const CREDENTIAL_FILES: [&str; 6] = [
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".htpasswd",
    "credentials.json",
    "service-account.json",
];
/// Endings that mark a file as an example, not the real thing (`.env.example`).
pub(crate) const EXAMPLE_SUFFIXES: [&str; 4] = [".example", ".sample", ".template", ".dist"];

/// Whether a file name looks like a secret (`.env*`, keys, certificates, credentials). Broader
/// than lint's check, by prefix: packing is where a leak would ship.
pub(crate) fn looks_secret(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let example = EXAMPLE_SUFFIXES
        .iter()
        .any(|suffix| lower.ends_with(suffix));
    (lower.starts_with(".env") && !example)
        || KEY_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
        || SSH_KEYS.iter().any(|key| lower.starts_with(key))
        || CREDENTIAL_FILES.contains(&lower.as_str())
}

/// What kind of secret a file named `name` holds, for lint: exact names, as written (a
/// `.env.example` is an example, not a secret).
pub(crate) fn secret_file_kind(name: &str) -> Option<&'static str> {
    let example = EXAMPLE_SUFFIXES.iter().any(|suffix| name.ends_with(suffix));
    if (name == ".env" || name.starts_with(".env.")) && !example {
        return Some("an environment file with secrets");
    }
    if KEY_EXTENSIONS.iter().any(|ext| name.ends_with(ext)) {
        return Some("a private key or certificate store");
    }
    if SSH_KEYS.contains(&name) {
        return Some("an SSH private key");
    }
    if CREDENTIAL_FILES.contains(&name) {
        return Some("a credentials file");
    }
    None
}
