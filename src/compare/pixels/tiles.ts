/**
 * Before/after tiles of a region: the same box (the region, padded, clipped
 * to the canvas) cropped from A and from B, as small RGBA PNGs, so a reader
 * sees the change without loading two full pages. A box larger than
 * `maxSide` is scaled down by a whole factor (each tile pixel the mean of the
 * block it covers); where a side has no pixels (the extension of the other)
 * its tile is transparent.
 */
import { encodePng } from './encodePng';
import type { PixelSides, Rect } from './engine';
import type { Raster } from './raster';

export interface TileOptions {
  /** Device pixels added around the region on each side (default 8). */
  padding?: number;
  /** The longest side of a tile, in tile pixels (default 480). */
  maxSide?: number;
}

/** The box a tile shows, in device pixels. */
export interface TileBox extends Rect {
  /** Device pixels per tile pixel along each axis (1: not scaled). */
  scale: number;
}

export interface RegionTile {
  /** Index into the result's regions. */
  region: number;
  box: TileBox;
  before: Buffer;
  after: Buffer;
}

export const DEFAULT_TILE_PADDING = 8;
export const DEFAULT_TILE_MAX_SIDE = 480;

export function tileBox(
  region: { x: number; y: number; width: number; height: number },
  canvas: { width: number; height: number },
  options: TileOptions = {},
): TileBox {
  const pad = options.padding ?? DEFAULT_TILE_PADDING;
  const maxSide = options.maxSide ?? DEFAULT_TILE_MAX_SIDE;
  const x = Math.max(0, region.x - pad);
  const y = Math.max(0, region.y - pad);
  const width = Math.min(canvas.width, region.x + region.width + pad) - x;
  const height = Math.min(canvas.height, region.y + region.height + pad) - y;
  return { x, y, width, height, scale: Math.max(1, Math.ceil(Math.max(width, height) / maxSide)) };
}

/** RGBA scanlines (filter None) of the box from one side, averaged down by box.scale. */
function cropScanlines(r: Raster, box: TileBox): { width: number; height: number; scanlines: Buffer } {
  const s = box.scale;
  const tw = Math.ceil(box.width / s);
  const th = Math.ceil(box.height / s);
  const span = tw * 4 + 1;
  const out = Buffer.alloc(th * span);
  const c = r.channels;
  for (let ty = 0; ty < th; ty++) {
    for (let tx = 0; tx < tw; tx++) {
      let n = 0;
      let sr = 0;
      let sg = 0;
      let sb = 0;
      let sa = 0;
      for (let y = box.y + ty * s; y < Math.min(box.y + (ty + 1) * s, box.y + box.height, r.height); y++) {
        for (let x = box.x + tx * s; x < Math.min(box.x + (tx + 1) * s, box.x + box.width, r.width); x++) {
          const p = y * r.stride + x * c;
          const alpha = c === 4 ? r.data[p + 3] : 255;
          sr += r.data[p] * alpha;
          sg += r.data[p + 1] * alpha;
          sb += r.data[p + 2] * alpha;
          sa += alpha;
          n++;
        }
      }
      if (!n || !sa) continue; // outside this side: transparent
      const o = ty * span + 1 + tx * 4;
      out[o] = Math.round(sr / sa);
      out[o + 1] = Math.round(sg / sa);
      out[o + 2] = Math.round(sb / sa);
      out[o + 3] = Math.round(sa / n);
    }
  }
  return { width: tw, height: th, scanlines: out };
}

/** Tiles of the given regions (B's rows they cover are made ready first). */
export async function renderTiles(
  sides: PixelSides,
  regions: Array<{ x: number; y: number; width: number; height: number }>,
  options: TileOptions = {},
): Promise<RegionTile[]> {
  const canvas = { width: Math.max(sides.a.width, sides.b.width), height: Math.max(sides.a.height, sides.b.height) };
  return Promise.all(
    regions.map(async (region, index) => {
      const box = tileBox(region, canvas, options);
      sides.bRows(box.y, box.y + box.height - 1);
      const before = cropScanlines(sides.a, box);
      const after = cropScanlines(sides.b, box);
      const [beforePng, afterPng] = await Promise.all([encodePng({ ...before, colorType: 6 }, 6), encodePng({ ...after, colorType: 6 }, 6)]);
      return { region: index, box, before: beforePng, after: afterPng };
    }),
  );
}
