// Turning a failed request into a sentence a person can act on.
import { Method } from './requests';

export const MethodNotFound = -32601;

interface MaybeRpcError {
    code?: unknown;
    message?: unknown;
    data?: { kind?: unknown } | null;
}

export function isMethodNotFound(err: unknown): boolean {
    return typeof err === 'object' && err !== null && (err as MaybeRpcError).code === MethodNotFound;
}

export function errorMessage(err: unknown, method: string): string {
    if (isMethodNotFound(err)) {
        // An older engram than the extension: say so rather than "unknown method".
        if (method === Method.delegate)
            return 'engram: this engram server does not support delegation (engram/delegate). Update engram to delegate from the editor.';
        return `engram: this engram server does not support ${method}. Update engram.`;
    }
    if (typeof err === 'object' && err !== null) {
        const e = err as MaybeRpcError;
        const message = typeof e.message === 'string' ? e.message : JSON.stringify(err);
        const kind = e.data && typeof e.data.kind === 'string' ? e.data.kind : '';
        // engram's messages already name the field or rule; the kind says which refusal it is.
        return kind ? `engram: ${message} (${kind})` : `engram: ${message}`;
    }
    return `engram: ${String(err)}`;
}
