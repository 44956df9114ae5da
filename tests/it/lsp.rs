//! The language server, `skillpkg lsp`: protocol sessions through a real LSP client library,
//! and a real editor (headless Neovim).

mod neovim;
mod protocol;

use crate::common::TestContext;
use crate::snapshot;

#[test]
fn help_explains_the_command() {
    let context = TestContext::new();
    snapshot!(context, "lsp__help", context.command(&["lsp", "--help"]));
}
