// Rewriting the commands engram's code actions and code lenses carry.
//
// The extension runs one engram per workspace folder, so a server command
// (engram.reverify on a quick fix) must go back to the server of the folder
// it came from. Registering the server's command names directly would make
// every folder's client claim the same global command ids; instead each
// command is wrapped into one extension command that carries its folder.

/** Commands engram serves through workspace/executeCommand. */
export const serverCommands: readonly string[] = [
    'engram.status',
    'engram.recall',
    'engram.reindex',
    'engram.reverify',
    'engram.reverifyFile',
    'engram.retract',
    'engram.resolve',
    'engram.openClaim',
];

/** The extension command that runs a server command on one folder's server. */
export const runOnServer = 'engram.runOnServer';

/** The client-side command engram's code lenses name. */
export const showMemories = 'engram.showMemories';

export interface CommandLike {
    title: string;
    command: string;
    arguments?: unknown[];
}

export function routeCommand(cmd: CommandLike, folderUri: string, documentUri: string): CommandLike {
    if (serverCommands.includes(cmd.command))
        return { ...cmd, command: runOnServer, arguments: [folderUri, cmd.command, ...(cmd.arguments ?? [])] };
    if (cmd.command === showMemories) {
        // The lens names the claims; the document says which server holds them.
        const first = cmd.arguments?.[0];
        const ids = typeof first === 'object' && first !== null ? (first as { ids?: unknown }).ids : undefined;
        return { ...cmd, arguments: [{ ids: Array.isArray(ids) ? ids : [], uri: documentUri }] };
    }
    return cmd;
}
