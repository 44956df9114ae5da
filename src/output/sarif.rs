//! SARIF 2.1.0 for GitHub code scanning.
//!
//! What GitHub needs (docs: "SARIF support for code scanning"): a stable `ruleId` per check,
//! rule metadata (`shortDescription`, `fullDescription`, `defaultConfiguration`), and file paths
//! relative to the repository root so alerts keep their identity between runs. Columns are
//! Unicode code points, declared with `columnKind`.

use std::fmt::Write as _;
use std::io::{self, Write};

use serde_json::{Value, json};

use super::Report;
use crate::check::rule::{self, Severity};

pub(super) fn print(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    let known: Vec<&rule::Rule> = rule::ALL
        .iter()
        .copied()
        .filter(|rule| report.kind == rule::Kind::Lint || rule.kind == rule::Kind::Validate)
        .collect();
    let rules: Vec<Value> = known
        .iter()
        .map(|rule| {
            json!({
                "id": rule.code,
                "name": rule.name,
                "shortDescription": { "text": rule.summary },
                "fullDescription": { "text": rule.doc },
                "help": { "text": rule.doc },
                "defaultConfiguration": { "level": level(rule.default) },
            })
        })
        .collect();
    let mut results = Vec::new();
    for item in report.checked {
        for diagnostic in &item.diagnostics {
            let uri = percent_encode(&report.repo_relative(&item.path_of(diagnostic)));
            let rule_index = known
                .iter()
                .position(|rule| std::ptr::eq(*rule, diagnostic.rule))
                .unwrap_or_default();
            let region = match item.location_of(diagnostic) {
                Some(at) => json!({
                    "startLine": at.start.line,
                    "startColumn": at.start.column,
                    "endLine": at.end.line,
                    "endColumn": at.end.column,
                }),
                None => json!({ "startLine": 1 }),
            };
            let mut text = diagnostic.message.clone();
            if let Some(help) = &diagnostic.help {
                text.push_str("\nhelp: ");
                text.push_str(help);
            }
            results.push(json!({
                "ruleId": diagnostic.rule.code,
                "ruleIndex": rule_index,
                "level": level(diagnostic.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri, "uriBaseId": "%SRCROOT%" },
                        "region": region,
                    }
                }],
                "properties": {
                    "targets": diagnostic.targets.iter().map(|target| target.name()).collect::<Vec<_>>(),
                },
            }));
        }
    }
    let encoded_root = percent_encode(&super::slash_path(&report.root));
    let root = format!("file://{}/", encoded_root.trim_end_matches('/'));
    let document = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": env!("CARGO_PKG_NAME"),
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "originalUriBaseIds": { "%SRCROOT%": { "uri": root } },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Percent-encodes a `/`-separated path for use in a URI.
fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_paths() {
        assert_eq!(percent_encode("a b/技.md"), "a%20b/%E6%8A%80.md");
    }
}
