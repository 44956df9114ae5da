//! The language server, `skillpkg lsp`, driven by real editors.

mod neovim;
mod protocol;
