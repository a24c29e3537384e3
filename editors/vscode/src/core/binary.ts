// Finding the engram binary: the `engram.path` setting when given, else the
// binary the platform package carries (bin/engram inside the extension),
// else `engram` on PATH. Checked before a server is spawned so a missing
// binary gets a message that says what to do instead of a spawn error.
//
// The order is rust-analyzer's: a setting is a person's explicit choice and
// always wins; the bundled binary matches the extension's version, so it
// comes before whatever `engram` happens to be on PATH; PATH is what is left
// for the universal package, which carries no binary.
import * as fs from 'fs';
import * as path from 'path';

export type BinaryLookup =
    | { ok: true; path: string; source: 'setting' | 'bundled' | 'PATH' }
    | { ok: false; message: string };

export interface LookupEnv {
    PATH?: string;
    HOME?: string;
}

export function isExecutableFile(p: string): boolean {
    try {
        if (!fs.statSync(p).isFile()) return false;
        fs.accessSync(p, fs.constants.X_OK);
        return true;
    } catch {
        return false;
    }
}

/** `~` and `${userHome}` expand; a relative setting is relative to the workspace folder. */
export function expandSetting(setting: string, folder: string, env: LookupEnv): string {
    let p = setting.trim();
    const home = env.HOME ?? '';
    if (home && (p === '~' || p.startsWith('~/'))) p = home + p.slice(1);
    p = p.replace('${userHome}', home).replace('${workspaceFolder}', folder);
    return path.isAbsolute(p) ? p : path.resolve(folder, p);
}

/**
 * `bundled` is where the platform package's binary would be (absent from
 * the universal package); pass '' when there is none to look for.
 */
export function findBinary(
    setting: string,
    folder: string,
    env: LookupEnv,
    bundled = '',
    isExecutable: (p: string) => boolean = isExecutableFile,
): BinaryLookup {
    if (setting.trim()) {
        const p = expandSetting(setting, folder, env);
        if (isExecutable(p)) return { ok: true, path: p, source: 'setting' };
        return {
            ok: false,
            message: `engram.path is set to "${setting.trim()}", but ${p} is not an executable file.`,
        };
    }
    if (bundled && isExecutable(bundled)) return { ok: true, path: bundled, source: 'bundled' };
    for (const dir of (env.PATH ?? '').split(path.delimiter)) {
        if (!dir) continue;
        const p = path.join(dir, 'engram');
        if (isExecutable(p)) return { ok: true, path: p, source: 'PATH' };
    }
    return {
        ok: false,
        message: 'The engram binary was not found: engram.path is not set and there is no `engram` on PATH.',
    };
}

/**
 * A zip keeps a file's mode only when its packer wrote it: a bundled binary
 * that arrived without its executable bit gets it back (best effort; the
 * lookup then says what is wrong if it still cannot run).
 */
export function restoreExecutable(p: string): void {
    try {
        if (fs.statSync(p).isFile() && !isExecutableFile(p)) fs.chmodSync(p, 0o755);
    } catch {
        // Absent (the universal package) or read-only: nothing to restore.
    }
}
