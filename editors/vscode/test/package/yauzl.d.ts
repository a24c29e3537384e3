// The part of yauzl's API the package test reads a .vsix with.
declare module 'yauzl' {
    import { Readable } from 'node:stream';

    export interface Entry {
        fileName: string;
        /** The high 16 bits hold the Unix mode when the packer wrote one. */
        externalFileAttributes: number;
    }

    export interface ZipFile {
        readEntry(): void;
        openReadStream(entry: Entry, callback: (err: Error | null, stream: Readable) => void): void;
        on(event: 'entry', listener: (entry: Entry) => void): this;
        on(event: 'end', listener: () => void): this;
        on(event: 'error', listener: (err: Error) => void): this;
        close(): void;
    }

    export function open(
        path: string,
        options: { lazyEntries: boolean },
        callback: (err: Error | null, zipfile: ZipFile) => void,
    ): void;
}
