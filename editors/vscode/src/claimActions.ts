// Re-verifying and retracting one claim, asked of a person the same way from
// a command, a pick list or the Memories view.
import * as vscode from 'vscode';
import { errorMessage } from './core/errors';
import { Method, retractParams, reverifyParams } from './core/requests';
import { FolderServer, NotRunning } from './server';

export interface ClaimRef {
    id: string;
    text: string;
    state: string;
}

/** Shows a failed request; a server that is not running gets a Restart button. */
export async function report(err: unknown, method: string, server?: FolderServer): Promise<void> {
    if (err instanceof NotRunning && server) {
        const choice = await vscode.window.showErrorMessage(`engram: ${err.message}`, 'Restart');
        if (choice === 'Restart') await server.restart();
        return;
    }
    void vscode.window.showErrorMessage(errorMessage(err, method));
}

export async function reverifyClaim(server: FolderServer, claim: ClaimRef): Promise<void> {
    const note = await vscode.window.showInputBox({
        title: `engram: Re-verify (${claim.state})`,
        prompt: `You checked "${claim.text.slice(0, 80)}" against the current code. A note for the record (optional):`,
        ignoreFocusOut: true,
    });
    if (note === undefined) return;
    try {
        await server.request(Method.reverify, reverifyParams(claim.id, server.agent, note));
        server.touched();
        void vscode.window.showInformationMessage(`engram: re-verified ${claim.id}.`);
    } catch (err) {
        await report(err, Method.reverify, server);
    }
}

export async function retractClaim(server: FolderServer, claim: ClaimRef): Promise<void> {
    const reason = await vscode.window.showInputBox({
        title: 'engram: Retract',
        prompt: `Why is "${claim.text.slice(0, 80)}" no longer true?`,
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'A retraction records its reason.'),
    });
    if (!reason) return;
    try {
        await server.request(Method.retract, retractParams(claim.id, server.agent, reason));
        server.touched();
        void vscode.window.showInformationMessage(`engram: retracted ${claim.id} (kept in its history).`);
    } catch (err) {
        await report(err, Method.retract, server);
    }
}
