// What the running engram says it offers. Its initialize result lists the
// engram/* methods it serves (capabilities.experimental.engram.methods); a
// request for one it does not list is refused here, with the same sentence
// a "method not found" reply would get, instead of being sent.
import { MethodNotFound } from './errors';

/** The advertised engram/* methods, or undefined when the server lists none (an older engram). */
export function advertisedMethods(initializeResult: unknown): Set<string> | undefined {
    const methods = (initializeResult as { capabilities?: { experimental?: { engram?: { methods?: unknown } } } })
        ?.capabilities?.experimental?.engram?.methods;
    if (!Array.isArray(methods)) return undefined;
    return new Set(methods.filter((m): m is string => typeof m === 'string'));
}

/** Whether `method` is an engram method this server did not advertise. */
export function unsupported(methods: Set<string> | undefined, method: string): boolean {
    return methods !== undefined && method.startsWith('engram/') && !methods.has(method);
}

/** A request for an unadvertised method fails with this; it reads as a "method not found" reply. */
export class Unsupported extends Error {
    readonly code = MethodNotFound;
}

export function unsupportedError(method: string): Unsupported {
    return new Unsupported(`engram does not offer ${method}`);
}
