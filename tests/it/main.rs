//! Integration tests: real runs of the `skillpkg` binary.
