//! The top level of the command line.

use crate::common::{TestContext, run};
use crate::snapshot;

#[test]
fn help_lists_the_commands() {
    let context = TestContext::new();
    snapshot!(context, "cli__help", context.command(&["--help"]));
}

#[test]
fn version_prints_the_package_version() {
    let context = TestContext::new();
    let (code, stdout, _) = run(context.command(&["--version"]));
    assert_eq!(code, 0);
    assert_eq!(
        stdout.trim(),
        concat!("skillpkg ", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn no_command_is_a_usage_error() {
    let context = TestContext::new();
    let (code, _, stderr) = run(context.command(&[]));
    assert_eq!(code, 2);
    assert!(stderr.contains("Usage: skillpkg"), "{stderr}");
}
