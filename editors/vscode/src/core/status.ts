// The status-bar item and the Status report, from an engram/status answer.
import { StatusResult } from './wire';

export interface StatusBarView {
    text: string;
    tooltip: string;
    /** The item asks for attention (drifted or orphaned anchors, broken files, a server down). */
    warning: boolean;
}

/** Live claims the workspace reads by default: the project and the medulla. */
function liveClaims(status: StatusResult): number {
    return status.envelope.store.reduce((n, s) => n + s.claims.committed, 0);
}

/**
 * Broken claim files: the stores count them all, the list names only the
 * first ones (100 per store; a clone can carry a million).
 */
function brokenFiles(status: StatusResult): number {
    const counted = status.envelope.store.reduce((n, s) => n + (s.broken_files ?? 0), 0);
    return Math.max(counted, status.broken_files.length);
}

export function statusBarView(status: StatusResult): StatusBarView {
    const h = status.anchor_health;
    const parts = [`engram: ${liveClaims(status)}`];
    if (h.drifted) parts.push(`${h.drifted} drifted`);
    if (h.orphaned) parts.push(`${h.orphaned} orphaned`);
    if (h.unjudged) parts.push(`${h.unjudged} not judged`);
    const broken = brokenFiles(status);
    if (broken) parts.push(`${broken} broken`);
    const open = (status.inbox?.open ?? 0) + (status.inbox?.in_progress ?? 0);
    if (open) parts.push(`${open} ${open === 1 ? 'report' : 'reports'} open`);
    const tiers = status.envelope.store
        .map((s) => `${s.tier}: ${s.claims.committed}${s.exists ? '' : ' (no store yet)'}`)
        .join(', ');
    return {
        text: parts.join(' · '),
        tooltip:
            `engram bound to ${status.envelope.binding.root}\n${tiers}\n` +
            (open ? `${open} open in the project's inbox (engram inbox)\n` : '') +
            'Click for the status report.',
        warning: h.drifted + h.orphaned + broken > 0,
    };
}

export function statusBarDown(reason: 'starting' | 'missing' | 'crashed' | 'stopped'): StatusBarView {
    switch (reason) {
        case 'starting':
            return { text: 'engram: starting…', tooltip: 'engram serve is starting.', warning: false };
        case 'missing':
            return {
                text: 'engram: not found',
                tooltip: 'The engram binary was not found. Click to set engram.path or retry.',
                warning: true,
            };
        case 'crashed':
            return { text: 'engram: crashed', tooltip: 'engram serve stopped. Click to restart it.', warning: true };
        case 'stopped':
            return { text: 'engram: stopped', tooltip: 'engram serve is not running. Click to restart it.', warning: true };
    }
}

/** The Status report, as plain text lines for the output channel. */
export function statusReport(folder: string, status: StatusResult): string[] {
    const e = status.envelope;
    const h = status.anchor_health;
    const lines = [
        `engram status for ${folder}`,
        `  bound to     ${e.binding.root} (${e.binding.source}, fingerprint ${e.binding.fingerprint})`,
        `  server       engram ${e.session.version}, pid ${e.session.pid}, since ${e.session.started}`,
        `  trust mode   ${e.trust_mode} (${e.status})`,
    ];
    for (const s of e.store) {
        const c = s.claims;
        const team = s.tier.startsWith('team:');
        const state = !s.exists
            ? team
                ? 'not added on this machine (engram team add)'
                : 'no store yet'
            : s.index_ready
              ? 'index ready'
              : 'index not ready';
        lines.push(
            `  ${s.tier.padEnd(12)} ${c.committed} live, ${c.frontier} frontier, ${c.retracted} retracted, ` +
                `${c.superseded} superseded; ${s.anchors} anchors; ${state} (${s.path})` +
                (s.error ? `; error: ${s.error}` : ''),
        );
        // A store in a repository of its own: where it syncs, and how old
        // the local clone's view is (answers come from it).
        if (s.sync) {
            const age = !s.sync.age ? 'never' : s.sync.age === 'just now' ? s.sync.age : `${s.sync.age} ago`;
            const pending = s.sync.pending.length ? `; ${s.sync.pending.length} waiting to be pushed (engram sync)` : '';
            lines.push(`               a clone of ${s.sync.remote}; last sync ${age}${pending}`);
            if (s.sync.error) lines.push(`               the last sync failed: ${s.sync.error}`);
        }
    }
    lines.push(
        `  anchors      ${h.intact} intact, ${h.drifted} drifted, ${h.moved} moved, ${h.orphaned} orphaned` +
            (h.unjudged ? `, ${h.unjudged} not judged` : ''),
    );
    for (const [reason, n] of Object.entries(status.envelope.not_judged?.by_reason ?? {}))
        lines.push(`  not judged   ${n} (${reason})`);
    for (const b of status.broken_files) lines.push(`  broken file  ${b.file}: ${b.problem}`);
    const unlisted = brokenFiles(status) - status.broken_files.length;
    if (unlisted > 0) lines.push(`  broken file  ... and ${unlisted} more (engram check lists them)`);
    if (status.inbox) {
        const i = status.inbox;
        lines.push(`  inbox        ${i.open} open, ${i.in_progress} in progress, ${i.answered} answered, ${i.external} external`);
    }
    if (e.next_suggested) lines.push(`  next         ${e.next_suggested}`);
    return lines;
}

/** One sentence for a notification. */
export function statusSummary(status: StatusResult): string {
    const h = status.anchor_health;
    const unverified = h.drifted + h.orphaned;
    return (
        `engram: ${liveClaims(status)} live memories, ${h.intact} anchors intact` +
        (unverified ? `, ${h.drifted} drifted, ${h.orphaned} orphaned` : '') +
        ` (${status.envelope.trust_mode}).`
    );
}
