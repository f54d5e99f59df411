/** The parts of the pixel comparison's oracles (devDependencies without bundled types) that the tests use. */
declare module 'pngjs' {
  export class PNG {
    constructor(options?: { width?: number; height?: number });
    width: number;
    height: number;
    data: Buffer;
    static sync: {
      read(buffer: Buffer): PNG;
      write(png: PNG, options?: { colorType?: number; filterType?: number; inputColorType?: number; bitDepth?: number }): Buffer;
    };
  }
}

declare module 'pixelmatch' {
  export default function pixelmatch(
    img1: Uint8Array,
    img2: Uint8Array,
    output: Uint8Array | null,
    width: number,
    height: number,
    options?: { threshold?: number; includeAA?: boolean },
  ): number;
}
