//! One line per finding: `path:line:col: CODE severity: message`, for grep and editors.

use std::io::{self, Write};

use super::Report;

pub(super) fn print(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    for item in report.checked {
        for diagnostic in &item.diagnostics {
            let path = item.path_of(diagnostic);
            let path = path.display();
            let code = diagnostic.rule.code;
            let severity = diagnostic.severity.as_str();
            let message = diagnostic.message.replace('\n', " ");
            match item.location_of(diagnostic) {
                Some(at) => writeln!(
                    out,
                    "{path}:{}:{}: {code} {severity}: {message}",
                    at.start.line, at.start.column
                )?,
                None => writeln!(out, "{path}: {code} {severity}: {message}")?,
            }
        }
    }
    Ok(())
}
