//! `skillpkg lsp` over stdio, driven by a real LSP client library: `async-lsp`'s client main loop
//! (an implementation of the protocol independent of the `lsp-server` crate the server is built
//! on), talking to the real binary through pipes. Each test is a session: initialize, open,
//! change, diagnostics, code actions applied, hovers, completion, shutdown; what the server
//! answers is kept as snapshots under `snapshots/`.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use async_lsp::router::Router;
use async_lsp::{LanguageServer as _, MainLoop, ServerSocket};
use lsp_types::notification::{LogMessage, PublishDiagnostics, ShowMessage};
use lsp_types::{
    ClientCapabilities, CodeActionContext, CodeActionOrCommand, CodeActionParams, CompletionParams,
    CompletionResponse, DidChangeTextDocumentParams, DidOpenTextDocumentParams,
    DocumentSymbolParams, ExecuteCommandParams, HoverContents, HoverParams, InitializeParams,
    InitializedParams, PartialResultParams, Position, PublishDiagnosticsParams, Range,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem,
    TextDocumentPositionParams, TextEdit, Url, VersionedTextDocumentIdentifier,
    WorkDoneProgressParams, WorkspaceFolder,
};
use tokio::sync::mpsc;
use tokio_util::compat::{TokioAsyncReadCompatExt as _, TokioAsyncWriteCompatExt as _};

use crate::common::TestContext;

/// Every wait on the server is bounded.
const WAIT: Duration = Duration::from_secs(30);

/// A running `skillpkg lsp` and the client connected to it.
struct Session {
    server: ServerSocket,
    diagnostics: mpsc::UnboundedReceiver<PublishDiagnosticsParams>,
    /// What the server asked the editor to show (`window/showDocument`).
    shown: mpsc::UnboundedReceiver<lsp_types::ShowDocumentParams>,
    child: tokio::process::Child,
    main_loop: tokio::task::JoinHandle<()>,
}

struct Stop;

impl Session {
    async fn start(root: &Path) -> Self {
        Self::start_with(root, ClientCapabilities::default()).await
    }

    async fn start_with(root: &Path, capabilities: ClientCapabilities) -> Self {
        let (sender, diagnostics) = mpsc::unbounded_channel();
        let (show, shown) = mpsc::unbounded_channel();
        let (main_loop, server) = MainLoop::new_client(|_server| {
            let mut router = Router::new((sender, show));
            router
                .notification::<PublishDiagnostics>(|(sender, _), params| {
                    let _ = sender.send(params);
                    ControlFlow::Continue(())
                })
                .request::<lsp_types::request::ShowDocument, _>(|(_, show), params| {
                    let _ = show.send(params);
                    std::future::ready(Ok(lsp_types::ShowDocumentResult { success: true }))
                })
                .notification::<LogMessage>(|_, _| ControlFlow::Continue(()))
                .notification::<ShowMessage>(|_, _| ControlFlow::Continue(()))
                .event(|_, _: Stop| ControlFlow::Break(Ok(())));
            router
        });
        let mut child = tokio::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"))
            .arg("lsp")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("start skillpkg lsp");
        let stdout = child.stdout.take().expect("stdout").compat();
        let stdin = child.stdin.take().expect("stdin").compat_write();
        let main_loop = tokio::spawn(async move {
            let _ = main_loop.run_buffered(stdout, stdin).await;
        });
        let mut session = Self {
            server,
            diagnostics,
            shown,
            child,
            main_loop,
        };
        let root_uri = Url::from_file_path(root).expect("a file URI");
        let initialized = session
            .server
            .initialize(InitializeParams {
                workspace_folders: Some(vec![WorkspaceFolder {
                    uri: root_uri,
                    name: "root".into(),
                }]),
                capabilities,
                ..InitializeParams::default()
            })
            .await
            .expect("initialize");
        assert_eq!(
            initialized.server_info.map(|info| info.name).as_deref(),
            Some("skillpkg")
        );
        session
            .server
            .initialized(InitializedParams {})
            .expect("initialized");
        session
    }

    fn open(&mut self, path: &Path, text: &str) -> Url {
        let uri = Url::from_file_path(path).expect("a file URI");
        self.server
            .did_open(DidOpenTextDocumentParams {
                text_document: TextDocumentItem {
                    uri: uri.clone(),
                    language_id: "markdown".into(),
                    version: 1,
                    text: text.into(),
                },
            })
            .expect("didOpen");
        uri
    }

    fn change(&mut self, uri: &Url, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        self.server
            .did_change(DidChangeTextDocumentParams {
                text_document: VersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version,
                },
                content_changes: changes,
            })
            .expect("didChange");
    }

    /// The next diagnostics published for `uri` (those of other files are skipped).
    async fn diagnostics_for(&mut self, uri: &Url) -> PublishDiagnosticsParams {
        loop {
            let published = tokio::time::timeout(WAIT, self.diagnostics.recv())
                .await
                .expect("the server published diagnostics in time")
                .expect("the session is open");
            if &published.uri == uri {
                return published;
            }
        }
    }

    async fn hover(&mut self, uri: &Url, line: u32, character: u32) -> String {
        let hover = self
            .server
            .hover(HoverParams {
                text_document_position_params: position(uri, line, character),
                work_done_progress_params: WorkDoneProgressParams::default(),
            })
            .await
            .expect("hover")
            .unwrap_or_else(|| panic!("a hover at {line}:{character}"));
        match hover.contents {
            HoverContents::Markup(markup) => markup.value,
            other => panic!("a Markdown hover, not {other:?}"),
        }
    }

    async fn code_actions(&mut self, uri: &Url, range: Range) -> Vec<lsp_types::CodeAction> {
        self.server
            .code_action(CodeActionParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                range,
                context: CodeActionContext::default(),
                work_done_progress_params: WorkDoneProgressParams::default(),
                partial_result_params: PartialResultParams::default(),
            })
            .await
            .expect("codeAction")
            .unwrap_or_default()
            .into_iter()
            .map(|action| match action {
                CodeActionOrCommand::CodeAction(action) => action,
                CodeActionOrCommand::Command(command) => panic!("a bare command: {command:?}"),
            })
            .collect()
    }

    async fn completion(&mut self, uri: &Url, line: u32, character: u32) -> Vec<String> {
        let items = self
            .server
            .completion(CompletionParams {
                text_document_position: position(uri, line, character),
                work_done_progress_params: WorkDoneProgressParams::default(),
                partial_result_params: PartialResultParams::default(),
                context: None,
            })
            .await
            .expect("completion");
        match items {
            Some(CompletionResponse::Array(items)) => {
                items.into_iter().map(|item| item.label).collect()
            }
            other => panic!("a list of completions, not {other:?}"),
        }
    }

    async fn stop(mut self) {
        self.server.shutdown(()).await.expect("shutdown");
        self.server.exit(()).expect("exit");
        let status = tokio::time::timeout(WAIT, self.child.wait())
            .await
            .expect("the server exited in time")
            .expect("wait for the server");
        assert!(status.success(), "shutdown then exit ends with 0: {status}");
        let _ = self.server.emit(Stop);
        let _ = tokio::time::timeout(WAIT, self.main_loop).await;
    }
}

fn position(uri: &Url, line: u32, character: u32) -> TextDocumentPositionParams {
    TextDocumentPositionParams {
        text_document: TextDocumentIdentifier { uri: uri.clone() },
        position: Position::new(line, character),
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

/// Applies edits (in UTF-16 positions, without overlaps) to a text, as an editor would.
fn apply(text: &str, edits: &[TextEdit]) -> String {
    let offset = |position: Position| {
        let mut line_start = 0;
        for _ in 0..position.line {
            line_start += text[line_start..]
                .find('\n')
                .map_or(text.len() - line_start, |at| at + 1);
        }
        let mut units = 0;
        for (at, c) in text[line_start..].char_indices() {
            if units >= position.character as usize || c == '\n' {
                return line_start + at;
            }
            units += c.len_utf16();
        }
        text.len()
    };
    let mut edits: Vec<&TextEdit> = edits.iter().collect();
    edits
        .sort_by_key(|edit| std::cmp::Reverse((edit.range.start.line, edit.range.start.character)));
    let mut out = text.to_owned();
    for edit in edits {
        out.replace_range(
            offset(edit.range.start)..offset(edit.range.end),
            &edit.new_text,
        );
    }
    out
}

fn edits_of(action: &lsp_types::CodeAction, uri: &Url) -> Vec<TextEdit> {
    action
        .edit
        .as_ref()
        .and_then(|edit| edit.changes.as_ref())
        .and_then(|changes| changes.get(uri))
        .cloned()
        .expect("the action edits the file")
}

/// What the CLI reports for a folder: (code, line) pairs of `skillpkg lint --format json`.
fn cli_findings(cx: &TestContext, folder: &str) -> Vec<(String, u32)> {
    let (_, stdout, stderr) = crate::common::run(cx.command(&["lint", folder, "--format", "json"]));
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("lint's JSON ({error}): {stdout}{stderr}"));
    let mut found: Vec<(String, u32)> = report["skills"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|skill| skill["diagnostics"].as_array().cloned().unwrap_or_default())
        .filter(|diagnostic| {
            diagnostic["file"]
                .as_str()
                .is_some_and(|file| file.ends_with("SKILL.md"))
        })
        .map(|diagnostic| {
            let line = diagnostic["line"].as_u64().unwrap_or(1);
            (
                diagnostic["code"].as_str().unwrap_or_default().to_owned(),
                u32::try_from(line).unwrap_or(1) - 1,
            )
        })
        .collect();
    found.sort();
    found
}

fn lsp_findings(published: &PublishDiagnosticsParams) -> Vec<(String, u32)> {
    let mut found: Vec<(String, u32)> = published
        .diagnostics
        .iter()
        .filter_map(|diagnostic| match &diagnostic.code {
            Some(lsp_types::NumberOrString::String(code)) => {
                Some((code.clone(), diagnostic.range.start.line))
            }
            _ => None,
        })
        .collect();
    found.sort();
    found
}

const PDF_FORMS: &str = "---
name: pdf-forms
description: Fill in PDF forms and flatten them. Use when the user asks to fill a PDF form.
compatibility: yes
allowed-tools: Bash(python3:*) Read
---

# PDF forms

See [the API](references/api.md) and [the guide](references/guide.md).

Run !`python3 ${CLAUDE_SKILL_DIR}/scripts/fill.py $ARGUMENTS` first.

## Flattening

Then flatten with $0.
";

fn project(cx: &TestContext) -> PathBuf {
    let skill = cx.write(".claude/skills/pdf-forms/SKILL.md", PDF_FORMS);
    cx.write(".claude/skills/pdf-forms/references/api.md", "# API\n");
    cx.write(
        ".claude/skills/pdf-forms/scripts/fill.py",
        "print('filled')\n",
    );
    cx.skill(
        ".claude/skills/release-notes",
        "---\nname: release-notes\ndescription: Write release notes from merged pull requests. Use when the user asks for release notes or a changelog entry.\n---\n\n# Release notes\n\nRead the merged pull requests and group them by area.\n",
    );
    skill
}

#[test]
#[expect(clippy::too_many_lines, reason = "one editor session, step by step")]
fn a_session_diagnoses_hovers_completes_and_fixes() {
    let cx = TestContext::new();
    let skill = project(&cx);
    runtime().block_on(async {
        let mut session = Session::start(cx.root()).await;
        let uri = session.open(&skill, PDF_FORMS);
        let first = session.diagnostics_for(&uri).await;
        assert_eq!(first.version, Some(1));
        // The editor and CI agree: the same findings at the same lines.
        assert_eq!(lsp_findings(&first), cli_findings(&cx, ".claude/skills"));

        let hovers = [
            ("description key", 2, 3),
            ("description value", 2, 30),
            ("allowed-tools key", 4, 3),
            ("inline shell", 11, 8),
            ("skill dir variable", 11, 26),
            ("arguments", 11, 55),
            ("positional argument", 15, 19),
            ("existing link", 9, 8),
            ("broken link", 9, 45),
        ];
        let mut shown = Vec::new();
        for (what, line, character) in hovers {
            shown.push(format!(
                "## {what} ({line}:{character})\n{}",
                session.hover(&uri, line, character).await
            ));
        }

        let keys = session.completion(&uri, 5, 0).await;
        let tools = session.completion(&uri, 4, 15).await;
        let symbols = session
            .server
            .document_symbol(DocumentSymbolParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                work_done_progress_params: WorkDoneProgressParams::default(),
                partial_result_params: PartialResultParams::default(),
            })
            .await
            .expect("documentSymbol");

        // The quick fix for `compatibility: yes`, applied as the editor would.
        let line_3 = Range::new(Position::new(3, 0), Position::new(3, 0));
        let actions = session.code_actions(&uri, line_3).await;
        let titles: Vec<String> = actions
            .iter()
            .map(|action| {
                format!(
                    "{} [{}]",
                    action.title,
                    action.kind.as_ref().map_or("", |kind| kind.as_str())
                )
            })
            .collect();
        let quote = actions
            .iter()
            .find(|action| action.title == "Quote the value")
            .expect("the safe fix is offered");
        let edits = edits_of(quote, &uri);
        let fixed = apply(PDF_FORMS, &edits);
        assert!(fixed.contains("compatibility: \"yes\"\n"), "{fixed}");
        let changes = edits
            .iter()
            .map(|edit| TextDocumentContentChangeEvent {
                range: Some(edit.range),
                range_length: None,
                text: edit.new_text.clone(),
            })
            .collect();
        session.change(&uri, 2, changes);
        let after = session.diagnostics_for(&uri).await;
        assert_eq!(after.version, Some(2));
        assert!(
            !lsp_findings(&after).iter().any(|(code, _)| code == "SK015"),
            "the fixed finding is gone: {after:?}"
        );
        fs_err::write(&skill, &fixed).unwrap();
        assert_eq!(lsp_findings(&after), cli_findings(&cx, ".claude/skills"));

        let lenses = session
            .server
            .code_lens(lsp_types::CodeLensParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                work_done_progress_params: WorkDoneProgressParams::default(),
                partial_result_params: PartialResultParams::default(),
            })
            .await
            .expect("codeLens")
            .unwrap_or_default();
        let command = lenses
            .first()
            .and_then(|lens| lens.command.clone())
            .expect("a preview lens");
        let preview = session
            .server
            .execute_command(ExecuteCommandParams {
                command: command.command.clone(),
                arguments: command.arguments.clone().unwrap_or_default(),
                work_done_progress_params: WorkDoneProgressParams::default(),
            })
            .await
            .expect("executeCommand")
            .expect("a preview");
        let text = preview["text"].as_str().expect("the preview's text");
        assert!(
            text.contains("The following skills are available for use with the Skill tool:")
                && text.contains("- pdf-forms: Fill in PDF forms and flatten them.")
                && text.contains("Base directory for this skill:"),
            "{text}"
        );
        // The fixed text was written to disk above: the editor has nothing unsaved.
        assert_eq!(preview["unsaved"], serde_json::Value::Bool(false));
        session.stop().await;

        let settings = cx.settings();
        settings.bind(|| {
            insta::assert_snapshot!("lsp_diagnostics", pretty(&first));
            insta::assert_snapshot!("lsp_hovers", shown.join("\n\n"));
            insta::assert_snapshot!(
                "lsp_completion",
                format!(
                    "keys: {}\nallowed-tools ({} in all): {} …",
                    keys.join(" "),
                    tools.len(),
                    tools[..8.min(tools.len())].join(" ")
                )
            );
            insta::assert_snapshot!("lsp_symbols", pretty(&symbols));
            insta::assert_snapshot!("lsp_code_actions", titles.join("\n"));
            insta::assert_snapshot!("lsp_command", command.title);
        });
    });
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).expect("JSON")
}

#[test]
fn suppressions_and_fix_all_are_what_lint_would_do() {
    let cx = TestContext::new();
    let text = "---\nname: notes\ndescription: Take meeting notes. Use when the user asks for notes.\nlicense: no\ncompatibility: yes\n---\n\n# Notes\n\nSee scripts\\run.py for the script.\n";
    let skill = cx.skill("skills/notes", text);
    cx.write("skills/notes/scripts/run.py", "print('x')\n");
    runtime().block_on(async {
        let mut session = Session::start(cx.root()).await;
        let uri = session.open(&skill, text);
        let first = session.diagnostics_for(&uri).await;
        let codes = lsp_findings(&first);
        assert!(codes.contains(&("SK015".to_owned(), 3)), "{codes:?}");

        // Suppress the first finding on its line: it goes, the other stays.
        let actions = session
            .code_actions(&uri, Range::new(Position::new(3, 0), Position::new(3, 0)))
            .await;
        let suppress = actions
            .iter()
            .find(|action| {
                action.title.starts_with("Suppress SK015") && action.title.ends_with("on this line")
            })
            .expect("a line suppression");
        let suppressed = apply(text, &edits_of(suppress, &uri));
        assert!(
            suppressed.contains("# skillpkg-disable-next-line SK015\nlicense: no\n"),
            "{suppressed}"
        );
        session.change(
            &uri,
            2,
            vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: suppressed.clone(),
            }],
        );
        let after = session.diagnostics_for(&uri).await;
        let lines: Vec<u32> = lsp_findings(&after)
            .into_iter()
            .filter(|(code, _)| code == "SK015")
            .map(|(_, line)| line)
            .collect();
        assert_eq!(
            lines,
            vec![5],
            "only `compatibility: yes` is left: {after:?}"
        );

        // Fix all safe problems: the same text `lint --fix` writes.
        let actions = session
            .code_actions(&uri, Range::new(Position::new(0, 0), Position::new(0, 0)))
            .await;
        let fix_all = actions
            .iter()
            .find(|action| {
                action.kind.as_ref().map(lsp_types::CodeActionKind::as_str)
                    == Some("source.fixAll.skillpkg")
            })
            .expect("fix all");
        let fixed = apply(&suppressed, &edits_of(fix_all, &uri));
        session.stop().await;
        fs_err::write(&skill, &suppressed).unwrap();
        let (code, _, stderr) = crate::common::run(cx.command(&["lint", "skills/notes", "--fix"]));
        assert!(code == 0 || code == 1, "{stderr}");
        assert_eq!(fs_err::read_to_string(&skill).unwrap(), fixed);
        assert!(
            fixed.contains("compatibility: \"yes\"") && fixed.contains("scripts/run.py"),
            "{fixed}"
        );
    });
}

/// A load error (here YAML that does not parse) is offered no suppression: a comment could not
/// hide it, since `validate` and `lint` fail on it whatever it says. A lint finding on the same
/// file still is.
#[test]
fn a_load_error_is_offered_no_suppression() {
    let cx = TestContext::new();
    let text = "---\nname: notes\ndescription: Takes notes: use when asked\n---\n\n# Notes\n\nTODO: write the steps.\n";
    let skill = cx.skill("skills/notes", text);
    runtime().block_on(async {
        let mut session = Session::start(cx.root()).await;
        let uri = session.open(&skill, text);
        let codes = lsp_findings(&session.diagnostics_for(&uri).await);
        assert!(codes.iter().any(|(code, _)| code == "SK008"), "{codes:?}");
        assert!(codes.iter().any(|(code, _)| code == "SK209"), "{codes:?}");
        let titles = |actions: Vec<lsp_types::CodeAction>| -> Vec<String> {
            actions.into_iter().map(|action| action.title).collect()
        };
        let on_yaml = titles(
            session
                .code_actions(&uri, Range::new(Position::new(2, 0), Position::new(2, 40)))
                .await,
        );
        assert!(
            !on_yaml
                .iter()
                .any(|title| title.starts_with("Suppress SK008")),
            "{on_yaml:?}"
        );
        let on_todo = titles(
            session
                .code_actions(&uri, Range::new(Position::new(7, 0), Position::new(7, 5)))
                .await,
        );
        assert!(
            on_todo
                .iter()
                .any(|title| title.starts_with("Suppress SK209")),
            "{on_todo:?}"
        );
        session.stop().await;
    });
}

#[test]
fn a_sibling_changing_updates_the_rules_across_skills() {
    let cx = TestContext::new();
    let first_text = "---\nname: alpha\ndescription: Summarise a long document into key points. Use when asked for a summary.\n---\n\n# Alpha\n";
    let second_text = "---\nname: beta\ndescription: Translate a document into French. Use when asked for a translation.\n---\n\n# Beta\n";
    let first = cx.skill("skills/alpha", first_text);
    let second = cx.skill("skills/beta", second_text);
    runtime().block_on(async {
        let mut session = Session::start(cx.root()).await;
        let beta = session.open(&second, second_text);
        let clean = session.diagnostics_for(&beta).await;
        assert!(
            !lsp_findings(&clean).iter().any(|(code, _)| code == "SK601"),
            "{clean:?}"
        );
        let alpha = session.open(&first, first_text);
        let _ = session.diagnostics_for(&alpha).await;
        // alpha takes beta's name: the two clash, and beta (the later one, where the finding
        // goes), whose text did not change, is told so.
        session.change(
            &alpha,
            2,
            vec![TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(1, 6), Position::new(1, 11))),
                range_length: None,
                text: "beta".into(),
            }],
        );
        let clash = loop {
            let published = session.diagnostics_for(&beta).await;
            if lsp_findings(&published)
                .iter()
                .any(|(code, _)| code == "SK601")
            {
                break published;
            }
        };
        assert_eq!(clash.version, Some(1), "beta's own text is unchanged");
        // Back to its own name: the finding goes.
        session.change(
            &alpha,
            3,
            vec![TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(1, 6), Position::new(1, 10))),
                range_length: None,
                text: "alpha".into(),
            }],
        );
        let resolved = session.diagnostics_for(&beta).await;
        assert!(
            !lsp_findings(&resolved)
                .iter()
                .any(|(code, _)| code == "SK601"),
            "{resolved:?}"
        );
        session.stop().await;
    });
}

/// A file created on disk while the editor is open counts at the next save, even in an editor
/// that does not watch files (found by the Neovim test): the skill's folder is listed again.
#[test]
fn a_file_created_on_disk_counts_after_a_save() {
    let cx = TestContext::new();
    let text = "---\nname: notes\ndescription: Take meeting notes. Use when the user asks for notes.\n---\n\n# Notes\n\nSee [the guide](references/guide.md).\n";
    let skill = cx.skill("skills/notes", text);
    runtime().block_on(async {
        let mut session = Session::start(cx.root()).await;
        let uri = session.open(&skill, text);
        let broken = session.diagnostics_for(&uri).await;
        assert!(
            lsp_findings(&broken).contains(&("SK303".to_owned(), 7)),
            "{broken:?}"
        );
        cx.write("skills/notes/references/guide.md", "# Guide\n");
        session
            .server
            .did_save(lsp_types::DidSaveTextDocumentParams {
                text_document: TextDocumentIdentifier { uri: uri.clone() },
                text: None,
            })
            .expect("didSave");
        let fixed = session.diagnostics_for(&uri).await;
        assert!(lsp_findings(&fixed).is_empty(), "{fixed:?}");
        assert_eq!(lsp_findings(&fixed), cli_findings(&cx, "skills"));
        session.stop().await;
    });
}

/// Positions in a CRLF file are those of the same file with LF endings, and a suppression goes
/// on the line before the finding (found by review: the kept text had lost its CRLF map).
#[test]
fn crlf_files_get_the_same_positions_as_lf_files() {
    let lf = "---\nname: notes\ndescription: Take meeting notes. Use when the user asks for notes.\n---\n\n# Notes\n\nOne.\n\nTwo.\n\nSee [the guide](references/guide.md).\n";
    let crlf = lf.replace('\n', "\r\n");
    let mut ranges = Vec::new();
    for text in [lf.to_owned(), crlf] {
        let cx = TestContext::new();
        let skill = cx.skill("skills/notes", &text);
        runtime().block_on(async {
            let mut session = Session::start(cx.root()).await;
            let uri = session.open(&skill, &text);
            let published = session.diagnostics_for(&uri).await;
            let broken = published
                .diagnostics
                .iter()
                .find(|d| d.code == Some(lsp_types::NumberOrString::String("SK303".into())))
                .expect("the broken link")
                .range;
            let actions = session.code_actions(&uri, broken).await;
            let suppress = actions
                .iter()
                .find(|action| {
                    action.title.starts_with("Suppress SK303")
                        && action.title.ends_with("on this line")
                })
                .expect("a line suppression");
            let edit = &edits_of(suppress, &uri)[0];
            ranges.push((broken, edit.range, edit.new_text.clone()));
            session.stop().await;
        });
    }
    assert_eq!(
        ranges[0].0,
        Range::new(Position::new(11, 16), Position::new(11, 35))
    );
    assert_eq!(ranges[0].0, ranges[1].0, "the same range with CRLF");
    assert_eq!(
        ranges[0].1, ranges[1].1,
        "the comment goes before the same line"
    );
    assert_eq!(ranges[1].2, "<!-- skillpkg-disable-next-line SK303 -->\r\n");
}

/// An editor that resolves actions gets "fix all" without its edit, then the edit, versioned,
/// for the text it was offered for; once the text has changed, resolving it is refused.
#[test]
fn fix_all_is_resolved_for_the_version_it_was_offered_for() {
    let cx = TestContext::new();
    let text = "---\nname: notes\ndescription: Take meeting notes. Use when the user asks for notes.\nlicense: no\n---\n\n# Notes\n";
    let skill = cx.skill("skills/notes", text);
    let capabilities: ClientCapabilities = serde_json::from_value(serde_json::json!({
        "workspace": { "workspaceEdit": { "documentChanges": true } },
        "textDocument": { "codeAction": { "resolveSupport": { "properties": ["edit"] } } }
    }))
    .expect("capabilities");
    runtime().block_on(async {
        let mut session = Session::start_with(cx.root(), capabilities).await;
        let uri = session.open(&skill, text);
        let _ = session.diagnostics_for(&uri).await;
        let actions = session
            .code_actions(&uri, Range::new(Position::new(0, 0), Position::new(0, 0)))
            .await;
        let offered = actions
            .into_iter()
            .find(|action| action.kind.as_ref().map(lsp_types::CodeActionKind::as_str) == Some("source.fixAll.skillpkg"))
            .expect("fix all");
        assert!(offered.edit.is_none() && offered.data.is_some(), "{offered:?}");
        let resolved = session
            .server
            .code_action_resolve(offered.clone())
            .await
            .expect("resolve");
        let edit = serde_json::to_value(resolved.edit.expect("an edit")).unwrap();
        assert_eq!(edit["documentChanges"][0]["textDocument"]["version"], 1, "{edit}");
        assert!(
            edit["documentChanges"][0]["edits"][0]["newText"]
                .as_str()
                .is_some_and(|text| text.contains("license: \"no\"")),
            "{edit}"
        );
        assert_eq!(resolved.title, "Fix all safe problems in this file (1 fix)");
        // The user typed in between: the old action is refused, not applied over the new text.
        session.change(
            &uri,
            2,
            vec![TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(6, 7), Position::new(6, 7))),
                range_length: None,
                text: " and minutes".into(),
            }],
        );
        let refused = session.server.code_action_resolve(offered).await;
        assert!(
            matches!(&refused, Err(async_lsp::Error::Response(error)) if error.code == async_lsp::ErrorCode::CONTENT_MODIFIED),
            "{refused:?}"
        );
        session.stop().await;
    });
}

/// `shutdown` and `exit` sent together (as editors do when they quit) end the server with 0;
/// `exit` without `shutdown` ends it with 2. Raw framing here, so that nothing waits between
/// the two messages.
#[test]
fn shutdown_and_exit_together_end_the_server_cleanly() {
    use std::io::Write as _;
    let cx = TestContext::new();
    for (shutdown, expected) in [(true, 0), (false, 2)] {
        let mut child = std::process::Command::new(insta_cmd::get_cargo_bin("skillpkg"))
            .arg("lsp")
            .current_dir(cx.root())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start skillpkg lsp");
        let mut messages = vec![
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
            serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        ];
        if shutdown {
            messages.push(serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
        }
        messages.push(serde_json::json!({"jsonrpc": "2.0", "method": "exit"}));
        let mut stdin = child.stdin.take().expect("stdin");
        let mut bytes = Vec::new();
        for message in messages {
            let body = message.to_string();
            bytes.extend_from_slice(
                format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes(),
            );
        }
        stdin.write_all(&bytes).expect("write");
        drop(stdin);
        let deadline = std::time::Instant::now() + WAIT;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the server did not exit"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(expected), "shutdown first: {shutdown}");
    }
}

/// The preview runs off the server's thread: it answers with the text, and an editor that can
/// show documents is asked to show the file that text was written to.
#[test]
fn the_preview_is_shown_in_the_editor() {
    let cx = TestContext::new();
    let skill = project(&cx);
    let capabilities: ClientCapabilities = serde_json::from_value(serde_json::json!({
        "window": { "showDocument": { "support": true } }
    }))
    .expect("capabilities");
    runtime().block_on(async {
        let mut session = Session::start_with(cx.root(), capabilities).await;
        let uri = session.open(&skill, PDF_FORMS);
        let _ = session.diagnostics_for(&uri).await;
        let preview = session
            .server
            .execute_command(ExecuteCommandParams {
                command: "skillpkg.preview".into(),
                arguments: vec![serde_json::Value::String(uri.to_string())],
                work_done_progress_params: WorkDoneProgressParams::default(),
            })
            .await
            .expect("executeCommand")
            .expect("a preview");
        let shown = tokio::time::timeout(WAIT, session.shown.recv())
            .await
            .expect("the editor was asked in time")
            .expect("a document to show");
        let path = shown.uri.to_file_path().expect("a file");
        assert_eq!(
            fs_err::read_to_string(&path).unwrap(),
            preview["text"].as_str().unwrap()
        );
        assert_eq!(preview["skill"], "pdf-forms");
        session.stop().await;
        // The preview's folder goes with the server.
        assert!(!path.exists(), "{} is left behind", path.display());
    });
}

/// The nearest skillpkg.toml chooses the rules, as for `lint`; an unsafe fix says so in its
/// title and is not preferred; "in this file" suppresses a finding; a finding about another
/// file of the skill is published on that file; values complete for `model` and `effort`.
#[test]
fn configuration_other_files_unsafe_fixes_and_values() {
    let cx = TestContext::new();
    cx.write("skillpkg.toml", "[lint]\nignore = [\"SK015\"]\n");
    let text = "---\nname: notes\ndescription: Take meeting notes. Use when the user asks for notes.\nwhen_to_use: When the user pastes a transcript.\nlicense: no\nmodel: sonnet\neffort: high\n---\n\n# Notes\n\nRun `scripts/run.sh`.\n";
    let skill = cx.skill("skills/notes", text);
    let script_text =
        "#!/bin/sh\nexport GITHUB_TOKEN=ghp_R8mZq2LkV7xNc4WpT9sYb3HdJ6fGa1QeU5oK\necho hi\n";
    let script = cx.write("skills/notes/scripts/run.sh", script_text);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    runtime().block_on(async {
        let mut session = Session::start(cx.root()).await;
        let uri = session.open(&skill, text);
        let first = session.diagnostics_for(&uri).await;
        let found = lsp_findings(&first);
        assert!(found.contains(&("SK013".to_owned(), 3)), "{found:?}");
        assert!(
            !found.iter().any(|(code, _)| code == "SK015"),
            "skillpkg.toml ignores SK015: {found:?}"
        );
        assert_eq!(found, cli_findings(&cx, "skills"));

        let actions = session
            .code_actions(&uri, Range::new(Position::new(3, 0), Position::new(3, 0)))
            .await;
        let unsafe_fix = actions
            .iter()
            .find(|action| action.title.contains("(unsafe: changes what an agent sees"))
            .expect("the unsafe fix, labelled");
        assert_eq!(unsafe_fix.is_preferred, Some(false), "{unsafe_fix:?}");
        let in_file = actions
            .iter()
            .find(|action| action.title == "Suppress SK013 (client-specific-key) in this file")
            .expect("a file suppression");
        let suppressed = apply(text, &edits_of(in_file, &uri));
        assert!(
            suppressed.starts_with("---\n# skillpkg-disable-file SK013\nname: notes\n"),
            "{suppressed}"
        );
        session.change(
            &uri,
            2,
            vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: suppressed.clone(),
            }],
        );
        let after = session.diagnostics_for(&uri).await;
        assert!(
            !lsp_findings(&after).iter().any(|(code, _)| code == "SK013"),
            "{after:?}"
        );

        let script_uri = session.open(&script, script_text);
        let on_script = session.diagnostics_for(&script_uri).await;
        assert_eq!(
            lsp_findings(&on_script),
            vec![("SK702".to_owned(), 1)],
            "the token, on the script's own line: {on_script:?}"
        );

        let models = session.completion(&uri, 6, 7).await;
        assert!(
            models.iter().any(|label| label == "inherit")
                && models.iter().any(|label| label == "claude-opus-5-5"),
            "{models:?}"
        );
        let efforts = session.completion(&uri, 7, 8).await;
        assert_eq!(efforts, ["low", "medium", "high", "xhigh", "max"]);
        session.stop().await;
    });
}
