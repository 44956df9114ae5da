//! `skillpkg lsp`: a language server over stdio, for skill authors' editors.
//!
//! Built on `lsp-server`, rust-analyzer's own transport crate: a synchronous message loop over
//! crossbeam channels, with the protocol's types from `lsp-types`. skillpkg's engine is
//! synchronous and answers in a few milliseconds, so an async framework (tower-lsp and its
//! forks) would add a runtime and a second concurrency model for nothing; `lsp-server` is
//! maintained with rust-analyzer, and lets the loop coalesce a burst of edits into one lint.
//!
//! The server lints with the engine `skillpkg lint` runs ([`workspace`]), so the editor and CI
//! cannot disagree; everything the editor asks about is answered from the same findings and
//! from the `agent` layer that `preview` renders with.

mod actions;
mod document;
mod features;
mod preview;
mod workspace;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as notifications, Notification as _};
use lsp_types::request::{self as requests, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CodeLensOptions,
    CompletionOptions, ExecuteCommandOptions, HoverProviderCapability, InitializeParams,
    InitializeResult, OneOf, PositionEncodingKind, PublishDiagnosticsParams, SaveOptions,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Url,
};

use super::ExitStatus;
use document::{Document, Encoding};
use workspace::{Overlay, Workspace};

/// Start the language server (stdio), for editors.
///
/// Speaks the Language Server Protocol on stdin and stdout: diagnostics as you type (the rules
/// and engine of `skillpkg lint`, configured by the nearest skillpkg.toml, rules across skills
/// included), quick fixes and suppressions, hovers that show what each agent does with the
/// frontmatter and the exact line Claude Code lists, completion, document symbols, and a
/// "Preview what the model sees" code lens. Editors start it themselves: docs/editors.md has the
/// set-ups for VS Code, Neovim and Helix.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  skillpkg lsp            # what an editor runs; it speaks JSON-RPC on stdin/stdout")]
pub struct LspArgs {
    /// Accepted for clients that pass it: stdio is the only transport
    #[arg(long, hide = true)]
    pub stdio: bool,
}

/// The server command that returns what the model sees for a skill.
pub(crate) const PREVIEW_COMMAND: &str = "skillpkg.preview";

/// The code action kind of "fix all safe problems".
pub(crate) const FIX_ALL_KIND: &str = "source.fixAll.skillpkg";

#[expect(
    clippy::needless_pass_by_value,
    reason = "every command's `run` takes its arguments"
)]
pub fn run(args: LspArgs) -> anyhow::Result<ExitStatus> {
    let _ = args.stdio;
    let (connection, io_threads) = Connection::stdio();
    let status = serve(&connection);
    drop(connection);
    io_threads
        .join()
        .context("the editor's connection failed")?;
    status
}

/// Runs the protocol over `connection` until the editor says `exit` (or hangs up).
pub(crate) fn serve(connection: &Connection) -> anyhow::Result<ExitStatus> {
    let (id, params) = connection
        .initialize_start()
        .context("the editor did not start the protocol with `initialize`")?;
    let params: InitializeParams =
        serde_json::from_value(params).context("cannot read the editor's `initialize`")?;
    let encoding = negotiate(&params);
    let result = InitializeResult {
        capabilities: capabilities(encoding),
        server_info: Some(ServerInfo {
            name: "skillpkg".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    connection.initialize_finish(id, serde_json::to_value(result)?)?;
    let mut server = Server::new(&params, encoding, connection.sender.clone())?;
    server.start();
    let mut shut_down = false;
    loop {
        // The rules across skills, when an edit left them stale, run once the editor has
        // nothing more to say: the edited file's own findings are published first.
        let first = if server.workspace.set_stale && !shut_down {
            match connection.receiver.try_recv() {
                Ok(message) => message,
                Err(crossbeam_channel::TryRecvError::Empty) => {
                    server.settle_guarded();
                    continue;
                }
                Err(crossbeam_channel::TryRecvError::Disconnected) => {
                    return Ok(ExitStatus::Error);
                }
            }
        } else {
            let Ok(first) = connection.receiver.recv() else {
                // The editor hung up without `exit`.
                return Ok(ExitStatus::Error);
            };
            first
        };
        // A burst of edits is applied whole before anything is linted again.
        let batch: Vec<Message> = std::iter::once(first)
            .chain(connection.receiver.try_iter())
            .collect();
        for message in batch {
            match message {
                Message::Request(request) if request.method == requests::Shutdown::METHOD => {
                    shut_down = true;
                    let _ = connection
                        .sender
                        .send(Message::Response(Response::new_ok(request.id, ())));
                }
                Message::Request(request) if shut_down => {
                    let _ = connection.sender.send(Message::Response(Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is shutting down".into(),
                    )));
                }
                Message::Request(request) => {
                    server.flush_guarded();
                    // Actions act on every finding, those across skills included.
                    if request.method == requests::CodeActionRequest::METHOD
                        || request.method == requests::CodeActionResolveRequest::METHOD
                    {
                        server.settle_guarded();
                    }
                    server.request(request);
                }
                Message::Notification(notification) => {
                    if notification.method == notifications::Exit::METHOD {
                        // `exit` without `shutdown` first is an error, as the protocol says.
                        return Ok(if shut_down {
                            ExitStatus::Success
                        } else {
                            ExitStatus::Error
                        });
                    }
                    if !shut_down {
                        server.notification(notification);
                    }
                }
                Message::Response(_) => {}
            }
        }
        if !shut_down {
            server.flush_guarded();
        }
    }
}

/// UTF-8 when the editor offers it (no conversion), else the protocol's default, UTF-16.
fn negotiate(params: &InitializeParams) -> Encoding {
    let offered = params
        .capabilities
        .general
        .as_ref()
        .and_then(|general| general.position_encodings.as_ref());
    if offered.is_some_and(|kinds| kinds.contains(&PositionEncodingKind::UTF8)) {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    }
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![":".into(), "(".into(), "/".into(), "$".into()]),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::new(FIX_ALL_KIND),
            ]),
            resolve_provider: Some(true),
            ..CodeActionOptions::default()
        })),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        document_symbol_provider: Some(OneOf::Left(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![PREVIEW_COMMAND.into()],
            ..ExecuteCommandOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}

/// The open documents, by path.
#[derive(Default)]
pub(crate) struct Documents {
    open: HashMap<PathBuf, (Url, Document)>,
}

impl Overlay for Documents {
    fn text(&self, path: &Path) -> Option<&str> {
        self.open.get(path).map(|(_, doc)| doc.text.as_str())
    }
}

impl Documents {
    pub(crate) fn get(&self, path: &Path) -> Option<&Document> {
        self.open.get(path).map(|(_, doc)| doc)
    }
}

/// The server's state between messages.
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent facts: what the editor supports, and whether a reload is due"
)]
pub(crate) struct Server {
    sender: crossbeam_channel::Sender<Message>,
    encoding: Encoding,
    documents: Documents,
    workspace: Workspace,
    /// Skills whose text or files changed since they were last linted.
    dirty: BTreeSet<usize>,
    /// Skills whose folder may have gained or lost a file (a save, a file opened or closed,
    /// a change on disk): listed again before they are linted.
    relist: BTreeSet<usize>,
    /// Find every skill again (a skill or a configuration appeared, went or changed).
    reload: bool,
    /// What was last published for each file, so that only changes are sent.
    published: HashMap<Url, Vec<lsp_types::Diagnostic>>,
    /// The editor can be asked to show a document (`window/showDocument`).
    show_document: bool,
    /// The editor lets the server ask it to watch files.
    watch_registration: bool,
    /// The editor takes versioned edits.
    document_changes: bool,
    /// The editor resolves code actions' edits on demand.
    resolve_edits: bool,
    next_request: i32,
    /// Where previews are written for the editor to show; removed when the server stops.
    preview_folder: Option<tempfile::TempDir>,
}

impl Server {
    fn new(
        params: &InitializeParams,
        encoding: Encoding,
        sender: crossbeam_channel::Sender<Message>,
    ) -> anyhow::Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let context_window =
            crate::agent::claude_code::Model::named(crate::agent::claude_code::DEFAULT_MODEL)
                .context_window;
        let mut workspace = Workspace::new(cwd, context_window);
        let mut roots: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|folder| folder.uri.to_file_path().ok())
            .collect();
        #[expect(deprecated, reason = "older editors send only `rootUri`")]
        if roots.is_empty()
            && let Some(root) = params
                .root_uri
                .as_ref()
                .and_then(|uri| uri.to_file_path().ok())
        {
            roots.push(root);
        }
        workspace.set_roots(roots);
        let capabilities = &params.capabilities;
        Ok(Self {
            sender,
            encoding,
            documents: Documents::default(),
            workspace,
            dirty: BTreeSet::new(),
            relist: BTreeSet::new(),
            reload: true,
            published: HashMap::new(),
            show_document: capabilities
                .window
                .as_ref()
                .and_then(|window| window.show_document.as_ref())
                .is_some_and(|show| show.support),
            watch_registration: capabilities
                .workspace
                .as_ref()
                .and_then(|workspace| workspace.did_change_watched_files.as_ref())
                .and_then(|watched| watched.dynamic_registration)
                .unwrap_or(false),
            document_changes: capabilities
                .workspace
                .as_ref()
                .and_then(|workspace| workspace.workspace_edit.as_ref())
                .and_then(|edit| edit.document_changes)
                .unwrap_or(false),
            resolve_edits: capabilities
                .text_document
                .as_ref()
                .and_then(|text| text.code_action.as_ref())
                .and_then(|action| action.resolve_support.as_ref())
                .is_some_and(|support| support.properties.iter().any(|p| p == "edit")),
            next_request: 0,
            preview_folder: None,
        })
    }

    /// After `initialized`: asks the editor to report changes to skill files on disk.
    fn start(&mut self) {
        if self.watch_registration {
            let watchers: Vec<lsp_types::FileSystemWatcher> = [
                "**/{SKILL.md,skill.md,skillpkg.toml}",
                "**/{scripts,references,assets}/**",
                "**/{.claude-plugin,.codex-plugin}/**",
            ]
            .into_iter()
            .map(|glob| lsp_types::FileSystemWatcher {
                glob_pattern: lsp_types::GlobPattern::String(glob.into()),
                kind: None,
            })
            .collect();
            let options = lsp_types::DidChangeWatchedFilesRegistrationOptions { watchers };
            let params = lsp_types::RegistrationParams {
                registrations: vec![lsp_types::Registration {
                    id: "skillpkg-watch".into(),
                    method: notifications::DidChangeWatchedFiles::METHOD.into(),
                    register_options: serde_json::to_value(options).ok(),
                }],
            };
            self.send_request(requests::RegisterCapability::METHOD, params);
        }
    }

    fn send_request(&mut self, method: &str, params: impl serde::Serialize) {
        self.next_request += 1;
        let request = Request::new(
            RequestId::from(self.next_request),
            method.to_owned(),
            params,
        );
        let _ = self.sender.send(Message::Request(request));
    }

    fn send_notification(&self, method: &str, params: impl serde::Serialize) {
        let _ = self.sender.send(Message::Notification(Notification::new(
            method.to_owned(),
            params,
        )));
    }

    /// [`Self::flush`]; a bug in a rule is logged and the session goes on (the findings of
    /// before stay).
    fn flush_guarded(&mut self) {
        let linted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.flush()));
        if linted.is_err() {
            self.reload = false;
            self.dirty.clear();
            self.relist.clear();
            self.log("skillpkg failed while linting (a bug: please report it); the findings shown are from before the last change");
        }
    }

    /// Runs the rules across skills when they are stale, and publishes what changed.
    fn settle_guarded(&mut self) {
        let settled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if self.workspace.settle() {
                self.publish();
            }
        }));
        if settled.is_err() {
            self.workspace.set_stale = false;
            self.log("skillpkg failed while checking across skills (a bug: please report it)");
        }
    }

    /// Lints what changed, then publishes the diagnostics that changed.
    fn flush(&mut self) {
        if self.reload {
            self.reload = false;
            self.dirty.clear();
            self.relist.clear();
            for path in self.documents.open.keys() {
                let outside = !self
                    .workspace
                    .roots()
                    .iter()
                    .any(|root| path.starts_with(root));
                if outside
                    && is_skill_file(path)
                    && let Some(root) = root_for(path)
                {
                    self.workspace.add_root(root);
                }
            }
            self.workspace.reload(&self.documents);
        } else if !self.dirty.is_empty() {
            let dirty: Vec<usize> = std::mem::take(&mut self.dirty).into_iter().collect();
            let relist: Vec<usize> = std::mem::take(&mut self.relist).into_iter().collect();
            self.workspace.relint(&dirty, &relist, &self.documents);
        } else {
            return;
        }
        self.publish();
    }

    /// Publishes each open file's diagnostics when they changed.
    fn publish(&mut self) {
        let mut out = Vec::new();
        for (path, (uri, doc)) in &self.documents.open {
            let diagnostics = actions::diagnostics_for(&self.workspace, path, doc, self.encoding);
            if self.published.get(uri) != Some(&diagnostics) {
                out.push((uri.clone(), diagnostics, doc.version));
            }
        }
        for (uri, diagnostics, version) in out {
            self.published.insert(uri.clone(), diagnostics.clone());
            self.send_notification(
                notifications::PublishDiagnostics::METHOD,
                PublishDiagnosticsParams {
                    uri,
                    diagnostics,
                    version: Some(version),
                },
            );
        }
    }

    /// Marks the skill a file belongs to for linting; a skill file the workspace does not know,
    /// or a configuration, makes it find every skill again.
    fn touched(&mut self, path: &Path, relist: bool) {
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        // A skill file the last walk did not find (new, or outside the workspace) is looked
        // for on open, save and close, not on every keystroke: one the walk skips on purpose
        // (under `node_modules/`, or ignored) would otherwise cost a walk per key.
        if name == "skillpkg.toml"
            || name == "plugin.json"
            || name == "marketplace.json"
            || (relist && is_skill_file(path) && self.workspace.skill_of(path).is_none())
        {
            self.reload = true;
            return;
        }
        if let Some(index) = self.workspace.skill_of(path) {
            self.dirty.insert(index);
            if relist {
                self.relist.insert(index);
            }
        }
    }

    fn notification(&mut self, notification: Notification) {
        let method = notification.method.clone();
        let outcome =
            match method.as_str() {
                notifications::DidOpenTextDocument::METHOD => notification.extract(&method).map(
                    |params: lsp_types::DidOpenTextDocumentParams| {
                        let item = params.text_document;
                        if let Ok(path) = item.uri.to_file_path() {
                            self.documents.open.insert(
                                path.clone(),
                                (item.uri, Document::new(item.text, item.version)),
                            );
                            self.touched(&path, true);
                        }
                    },
                ),
                notifications::DidChangeTextDocument::METHOD => notification.extract(&method).map(
                    |params: lsp_types::DidChangeTextDocumentParams| {
                        let id = params.text_document;
                        if let Ok(path) = id.uri.to_file_path()
                            && let Some((_, doc)) = self.documents.open.get_mut(&path)
                        {
                            doc.apply(params.content_changes, id.version, self.encoding);
                            self.touched(&path, false);
                        }
                    },
                ),
                notifications::DidSaveTextDocument::METHOD => notification.extract(&method).map(
                    |params: lsp_types::DidSaveTextDocumentParams| {
                        if let Ok(path) = params.text_document.uri.to_file_path() {
                            self.touched(&path, true);
                        }
                    },
                ),
                notifications::DidCloseTextDocument::METHOD => notification.extract(&method).map(
                    |params: lsp_types::DidCloseTextDocumentParams| {
                        let uri = params.text_document.uri;
                        if let Ok(path) = uri.to_file_path() {
                            self.documents.open.remove(&path);
                            // Back to the file on disk.
                            self.touched(&path, true);
                        }
                        if self.published.remove(&uri).is_some() {
                            self.send_notification(
                                notifications::PublishDiagnostics::METHOD,
                                PublishDiagnosticsParams {
                                    uri,
                                    diagnostics: Vec::new(),
                                    version: None,
                                },
                            );
                        }
                    },
                ),
                notifications::DidChangeWatchedFiles::METHOD => notification.extract(&method).map(
                    |params: lsp_types::DidChangeWatchedFilesParams| {
                        for change in params.changes {
                            let Ok(path) = change.uri.to_file_path() else {
                                continue;
                            };
                            // A file came or went: the skills, or a skill's files, changed.
                            if change.typ != lsp_types::FileChangeType::CHANGED {
                                self.reload = true;
                            }
                            if !self.documents.open.contains_key(&path) {
                                self.touched(&path, true);
                            }
                        }
                    },
                ),
                notifications::DidChangeWorkspaceFolders::METHOD => notification
                    .extract(&method)
                    .map(|params: lsp_types::DidChangeWorkspaceFoldersParams| {
                        let mut roots = self.workspace.roots().to_vec();
                        for removed in params.event.removed {
                            if let Ok(path) = removed.uri.to_file_path() {
                                roots.retain(|root| *root != path);
                            }
                        }
                        for added in params.event.added {
                            if let Ok(path) = added.uri.to_file_path() {
                                roots.push(path);
                            }
                        }
                        self.workspace.set_roots(roots);
                        self.reload = true;
                    }),
                _ => Ok(()),
            };
        if let Err(error) = outcome {
            self.log(&format!("cannot read `{method}`: {error}"));
        }
    }

    fn log(&self, message: &str) {
        self.send_notification(
            notifications::LogMessage::METHOD,
            lsp_types::LogMessageParams {
                typ: lsp_types::MessageType::WARNING,
                message: message.to_owned(),
            },
        );
    }

    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        let method = request.method.clone();
        if method == requests::ExecuteCommand::METHOD {
            if let Err(error) = self.execute(request) {
                let response =
                    Response::new_err(id, ErrorCode::InvalidParams as i32, format!("{error:#}"));
                let _ = self.sender.send(Message::Response(response));
            }
            return;
        }
        // A bug in a handler answers that request with an error; the session goes on.
        let answer =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.answer(request)));
        let response = match answer {
            Ok(Ok(Some(value))) => Response::new_ok(id, value),
            Ok(Ok(None)) => Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("skillpkg does not handle `{method}`"),
            ),
            Ok(Err(error)) => {
                let code = if error.is::<actions::ContentModified>() {
                    ErrorCode::ContentModified
                } else {
                    ErrorCode::InvalidParams
                };
                Response::new_err(id, code as i32, format!("{error:#}"))
            }
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("skillpkg failed while answering `{method}`"),
            ),
        };
        let _ = self.sender.send(Message::Response(response));
    }

    /// What the request handlers read.
    fn context(&self) -> features::Context<'_> {
        features::Context {
            workspace: &self.workspace,
            documents: &self.documents,
            encoding: self.encoding,
            document_changes: self.document_changes,
            resolve_edits: self.resolve_edits,
        }
    }

    /// `workspace/executeCommand` (the preview): what it needs is read here, the slow part
    /// runs on its own thread, which answers the request and asks the editor to show the text.
    fn execute(&mut self, request: Request) -> anyhow::Result<()> {
        let (id, params): (RequestId, lsp_types::ExecuteCommandParams) =
            request.extract(requests::ExecuteCommand::METHOD)?;
        let cx = self.context();
        let job = preview::plan(&cx, &params)?;
        if self.preview_folder.is_none() {
            self.preview_folder = Some(preview::folder()?);
        }
        let folder = self
            .preview_folder
            .as_ref()
            .map_or_else(|| PathBuf::from("."), |folder| folder.path().to_path_buf());
        let show = self.show_document.then(|| {
            self.next_request += 1;
            RequestId::from(self.next_request)
        });
        let sender = self.sender.clone();
        std::thread::Builder::new()
            .name("skillpkg-preview".into())
            .spawn(move || {
                let response = match job.run(&folder) {
                    Ok(shown) => {
                        if let (Some(show), Some(uri)) = (show, shown.file) {
                            let params = lsp_types::ShowDocumentParams {
                                uri,
                                external: Some(false),
                                take_focus: Some(true),
                                selection: None,
                            };
                            let request = Request::new(
                                show,
                                requests::ShowDocument::METHOD.to_owned(),
                                params,
                            );
                            let _ = sender.send(Message::Request(request));
                        }
                        Response::new_ok(id, shown.result)
                    }
                    Err(error) => {
                        Response::new_err(id, ErrorCode::InternalError as i32, format!("{error:#}"))
                    }
                };
                let _ = sender.send(Message::Response(response));
            })?;
        Ok(())
    }

    /// The result of a request, `None` for a method the server does not handle.
    fn answer(&mut self, request: Request) -> anyhow::Result<Option<serde_json::Value>> {
        let method = request.method.clone();
        let cx = self.context();
        let value = match method.as_str() {
            requests::CodeActionResolveRequest::METHOD => {
                let action: lsp_types::CodeAction = request.extract(&method)?.1;
                serde_json::to_value(actions::resolve_fix_all(&cx, action)?)?
            }
            requests::HoverRequest::METHOD => {
                let params: lsp_types::HoverParams = request.extract(&method)?.1;
                serde_json::to_value(features::hover(&cx, &params.text_document_position_params))?
            }
            requests::Completion::METHOD => {
                let params: lsp_types::CompletionParams = request.extract(&method)?.1;
                serde_json::to_value(features::completion(&cx, &params.text_document_position))?
            }
            requests::DocumentSymbolRequest::METHOD => {
                let params: lsp_types::DocumentSymbolParams = request.extract(&method)?.1;
                serde_json::to_value(features::symbols(&cx, &params.text_document.uri))?
            }
            requests::CodeLensRequest::METHOD => {
                let params: lsp_types::CodeLensParams = request.extract(&method)?.1;
                serde_json::to_value(features::code_lenses(&cx, &params.text_document.uri))?
            }
            requests::CodeActionRequest::METHOD => {
                let params: lsp_types::CodeActionParams = request.extract(&method)?.1;
                serde_json::to_value(actions::code_actions(&cx, &params))?
            }
            _ => return Ok(None),
        };
        Ok(Some(value))
    }
}

/// The folder to search for a skill file opened from outside the workspace: its skills folder
/// (so that its siblings count for the rules across skills), unless that is the file system's
/// root or the home folder, where only the skill's own folder is searched.
fn root_for(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match dir.parent() {
        Some(folder) if folder.parent().is_some() && Some(folder) != home.as_deref() => {
            Some(folder.to_path_buf())
        }
        _ => Some(dir.to_path_buf()),
    }
}

/// A skill file by name: `SKILL.md` in any spelling discovery accepts (`skill.md`, `Skill.md`).
pub(crate) fn is_skill_file(path: &Path) -> bool {
    path.file_name()
        .and_then(crate::skill::FileName::classify)
        .is_some()
}

/// The fuzz target `lsp_document`: any text, edited by any incremental changes in either
/// encoding, keeps its line index true to the text, maps positions and offsets back and forth,
/// and every feature the editor can ask about a SKILL.md answers without panicking.
#[doc(hidden)]
pub fn fuzz_document(bytes: &[u8]) {
    let Some((&flags, rest)) = bytes.split_first() else {
        return;
    };
    let encoding = if flags & 1 == 1 {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    };
    let (text, mut edits) = match rest.iter().position(|&byte| byte == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let mut doc = Document::new(String::from_utf8_lossy(text).into_owned(), 0);
    let mut version = 0;
    // Each edit: start line, start column, end line, end column, then a length and that many
    // bytes of new text (a range-less edit when the first byte is 255).
    while let [
        start_line,
        start_column,
        end_line,
        end_column,
        length,
        tail @ ..,
    ] = edits
    {
        let length = usize::from(*length).min(tail.len());
        let inserted = String::from_utf8_lossy(&tail[..length]).into_owned();
        edits = &tail[length..];
        let range = (*start_line != 255).then(|| {
            lsp_types::Range::new(
                lsp_types::Position::new(u32::from(*start_line), u32::from(*start_column)),
                lsp_types::Position::new(u32::from(*end_line), u32::from(*end_column)),
            )
        });
        version += 1;
        doc.apply(
            vec![lsp_types::TextDocumentContentChangeEvent {
                range,
                range_length: None,
                text: inserted,
            }],
            version,
            encoding,
        );
        doc.check();
    }
    let path = std::env::temp_dir().join("skillpkg-fuzz-no-such-folder/skills/x/SKILL.md");
    let Ok(uri) = Url::from_file_path(&path) else {
        return;
    };
    let mut documents = Documents::default();
    let lines = u32::try_from(doc.text.lines().count()).unwrap_or(u32::MAX);
    documents.open.insert(path, (uri.clone(), doc));
    let workspace = Workspace::new(std::env::temp_dir(), 1_000_000);
    let cx = features::Context {
        workspace: &workspace,
        documents: &documents,
        encoding,
        document_changes: false,
        resolve_edits: false,
    };
    let _ = features::symbols(&cx, &uri);
    let _ = features::code_lenses(&cx, &uri);
    // A few positions per line, over the first lines: each request reads the text afresh, so
    // more would only slow the fuzzer down.
    for line in 0..=lines.min(12) {
        for character in [0, 2, 9, 200] {
            let at = lsp_types::TextDocumentPositionParams {
                text_document: lsp_types::TextDocumentIdentifier { uri: uri.clone() },
                position: lsp_types::Position::new(line, character),
            };
            let _ = features::hover(&cx, &at);
            let _ = features::completion(&cx, &at);
        }
    }
}
