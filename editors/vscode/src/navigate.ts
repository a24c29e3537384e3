// Showing memories in a quick pick and going to the code they are about.
import * as path from 'path';
import * as vscode from 'vscode';
import { anchorTarget, currentLocation } from './core/anchors';
import { anchorsParams, getParams, Method } from './core/requests';
import { MemoryRow, renderRow } from './core/rows';
import { AnchorsResult, Claim, GetResult, LspRange } from './core/wire';
import { FolderServer } from './server';

interface MemoryPick extends vscode.QuickPickItem {
    row: MemoryRow;
}

export async function pickMemory(rows: MemoryRow[], title: string): Promise<MemoryRow | undefined> {
    const items: MemoryPick[] = rows.map((row) => ({ ...renderRow(row), row }));
    const picked = await vscode.window.showQuickPick(items, {
        title,
        placeHolder: 'tier · anchor state · age · author',
        matchOnDescription: true,
        matchOnDetail: true,
    });
    return picked?.row;
}

export function toRange(r: LspRange): vscode.Range {
    return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

export async function show(uri: vscode.Uri, selection?: vscode.Range): Promise<void> {
    await vscode.window.showTextDocument(uri, { selection, preview: true });
}

export async function openClaimFile(server: FolderServer, id: string): Promise<void> {
    const got = await server.request<GetResult>(Method.get, getParams(id));
    await show(vscode.Uri.file(got.claim.file));
}

/**
 * Goes to a claim's anchor as it is now: where a recall row says its code is,
 * else a symbol is looked up again (it may have drifted or moved since it was
 * anchored); a claim whose code is gone opens its claim file instead.
 */
export async function openAnchor(server: FolderServer, claim: Pick<Claim, 'id' | 'anchors'>): Promise<void> {
    const target = anchorTarget(claim);
    const root = server.folder.uri.fsPath;
    const inRoot = (p: string) => vscode.Uri.file(path.join(root, p));
    try {
        switch (target.kind) {
            case 'claim':
                return await openClaimFile(server, claim.id);
            case 'file':
                return await show(inRoot(target.path));
            case 'lines':
                return await show(inRoot(target.path), new vscode.Range(target.line, 0, target.line, 0));
            case 'symbol': {
                // A recall row says where the code is now; older servers do not.
                const now = claim.anchors[0]?.current;
                if (now) return await show(inRoot(now.path), toRange(now.range));
                const uri = inRoot(target.path);
                const found = await server.request<AnchorsResult>(Method.anchors, anchorsParams(uri.toString()));
                const at = currentLocation(found.anchors, claim.id, target.path);
                if (at?.range) return await show(inRoot(at.path), toRange(at.range));
                void vscode.window.showWarningMessage(
                    `engram: ${target.path}#${target.symbol} is gone (orphaned); showing the claim instead.`,
                );
                return await openClaimFile(server, claim.id);
            }
        }
    } catch (err) {
        // A file that no longer exists: the claim file still says what was meant.
        if (target.kind !== 'claim') return openClaimFile(server, claim.id);
        throw err;
    }
}
