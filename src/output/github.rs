//! GitHub Actions workflow annotations (`::error file=…,line=…::message`).
//!
//! Paths are relative to the repository root, as the runner expects. `col` and `endColumn` are
//! given only when a finding starts and ends on one line: GitHub rejects them otherwise.

use std::io::{self, Write};

use super::Report;
use crate::check::rule::Severity;

pub(super) fn print(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    for item in report.checked {
        for diagnostic in &item.diagnostics {
            let file = report.repo_relative(&item.path_of(diagnostic));
            let command = match diagnostic.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let mut properties = vec![format!("file={}", escape_property(&file))];
            if let Some(at) = item.location_of(diagnostic) {
                properties.push(format!("line={}", at.start.line));
                properties.push(format!("endLine={}", at.end.line));
                if at.start.line == at.end.line {
                    properties.push(format!("col={}", at.start.column));
                    properties.push(format!("endColumn={}", at.end.column));
                }
            }
            let title = format!(
                "skillpkg {} ({})",
                diagnostic.rule.code, diagnostic.rule.name
            );
            properties.push(format!("title={}", escape_property(&title)));
            let mut message = diagnostic.message.clone();
            if let Some(help) = &diagnostic.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            writeln!(
                out,
                "::{command} {}::{}",
                properties.join(","),
                escape_data(&message)
            )?;
        }
    }
    Ok(())
}

/// Escapes a message (`%`, CR, LF).
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: a message's escapes plus `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("100% done\r\nnext"), "100%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
