// The skillpkg extension: starts `skillpkg lsp` over stdio and leaves everything else to the
// server. Diagnostics, quick fixes, hovers, completion, symbols, the code lens and its
// `skillpkg.preview` command all come from the server's capabilities, which
// vscode-languageclient turns into VS Code features (it registers `skillpkg.preview` itself, from
// executeCommandProvider). What is left here: finding the binary, saying clearly when it is
// missing, and restarting the server.

import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let watchers: vscode.FileSystemWatcher[];
// Starts and stops run one after another, so that a restart never meets a client still starting.
let queue: Promise<void> = Promise.resolve();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
    // Created once and reused by every client, so that a restart neither adds a second
    // "skillpkg" output channel nor loses what the first one logged.
    output = vscode.window.createOutputChannel('skillpkg');
    watchers = [
        vscode.workspace.createFileSystemWatcher('**/{SKILL.md,skillpkg.toml}'),
        vscode.workspace.createFileSystemWatcher('**/{scripts,references,assets}/**'),
    ];
    context.subscriptions.push(
        output,
        ...watchers,
        vscode.commands.registerCommand('skillpkg.restartServer', restart),
        vscode.workspace.onDidChangeConfiguration((event) => {
            if (event.affectsConfiguration('skillpkg.path')) {
                void restart();
            }
        }),
    );
    await enqueue(start);
}

export function deactivate(): Promise<void> {
    return enqueue(stop);
}

function restart(): Promise<void> {
    return enqueue(async () => {
        await stop();
        await start();
    });
}

function enqueue(step: () => Promise<void>): Promise<void> {
    const done = queue.then(step);
    queue = done.catch(() => undefined);
    return done;
}

async function stop(): Promise<void> {
    const previous = client;
    client = undefined;
    // A client whose server never started, or crashed too often, refuses to stop: nothing runs.
    await previous?.dispose().catch(() => undefined);
}

async function start(): Promise<void> {
    const command = vscode.workspace.getConfiguration('skillpkg').get<string>('path') || 'skillpkg';
    if (!(await canRun(command))) {
        return;
    }
    // No `transport`: with TransportKind.stdio the client would append `--stdio` to the
    // arguments. Without it, it still talks over stdio, and runs exactly `<path> lsp`.
    const serverOptions: ServerOptions = { command, args: ['lsp'] };
    const clientOptions: LanguageClientOptions = {
        documentSelector: [
            { scheme: 'file', pattern: '**/SKILL.md' },
            { scheme: 'file', pattern: '**/skillpkg.toml' },
            { scheme: 'file', pattern: '**/{scripts,references,assets}/**' },
        ],
        synchronize: { fileEvents: watchers },
        outputChannel: output,
    };
    // The id `skillpkg` makes the client read `skillpkg.trace.server` by itself.
    client = new LanguageClient('skillpkg', 'skillpkg', serverOptions, clientOptions);
    // When the server does not start, the client has already said so and shown the output.
    await client.start().catch(() => undefined);
}

/**
 * Whether `<command> lsp --help` runs, and if not, an error message that says what to do: the
 * client's own message for a missing binary ("spawn skillpkg ENOENT") does not. A binary that
 * runs but has no `lsp` command is an older skillpkg.
 */
function canRun(command: string): Promise<boolean> {
    return new Promise((resolve) => {
        execFile(command, ['lsp', '--help'], { timeout: 10_000 }, (error) => {
            if (error === null) {
                resolve(true);
                return;
            }
            const code = (error as NodeJS.ErrnoException).code;
            const message =
                code === 'ENOENT' || code === 'EACCES'
                    ? `skillpkg: cannot run \`${command}\`. Install skillpkg (\`cargo install skillpkg\`) ` +
                      'or set `skillpkg.path` to the skillpkg binary.'
                    : `skillpkg: \`${command} lsp --help\` failed; this skillpkg may be older than the ` +
                      'language server. Update it (`cargo install skillpkg`) or set `skillpkg.path`.';
            output.appendLine(`${message}\n${String(error)}`);
            void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
                if (choice === 'Open Settings') {
                    void vscode.commands.executeCommand('workbench.action.openSettings', 'skillpkg.path');
                }
            });
            resolve(false);
        });
    });
}
