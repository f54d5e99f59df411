/**
 * The result of comparing two screenshots (comparePngFiles /
 * comparePngBytes): JSON-serializable, described by this schema (the JSON
 * Schema under schemas/ is generated from it). Coordinates and sizes are
 * device pixels of the PNGs, the two images aligned at their top-left corner.
 */
import { z } from 'zod';

const count = z.number().int().min(0);

export const pixelRectSchema = z.object({
  x: count.describe('left edge, device pixels'),
  y: count.describe('top edge, device pixels'),
  width: z.number().int().min(1),
  height: z.number().int().min(1),
});

const sideSchema = z.object({
  file: z.string().describe('the path read, or the label given for bytes'),
  width: z.number().int().min(1).nullable().describe('from its IHDR; null only for byte-identical files whose header does not read'),
  height: z.number().int().min(1).nullable(),
  bytes: count.describe('size of the PNG file'),
});

export const pixelRegionSchema = pixelRectSchema.extend({
  kind: z
    .enum(['pixels', 'extension'])
    .describe('pixels: a cluster of changed pixels (the bounding box of its pixels); extension: an area only one side has (the sizes differ)'),
  changedPixels: count.describe('changed pixels in the region (for an extension, its area)'),
  side: z.enum(['a', 'b']).optional().describe('for an extension: the side that has it'),
});

export const pixelComparisonSchema = z
  .object({
    status: z.enum(['unchanged', 'changed']).describe('changed: a pixel changed beyond the threshold and is not anti-aliasing, or the sizes differ'),
    identicalBytes: z.boolean().describe('the two files are byte for byte the same (then nothing was decoded)'),
    a: sideSchema,
    b: sideSchema,
    threshold: z.number().min(0).max(1).describe("pixelmatch's threshold: a pixel changed when its YIQ delta exceeds 35215 × threshold²"),
    includeAA: z.boolean().describe('true: anti-aliased pixels count as changes; false: they are detected and counted apart'),
    comparedArea: z
      .object({ width: z.number().int().min(1), height: z.number().int().min(1) })
      .nullable()
      .describe('the overlap compared pixel by pixel (the smaller width by the smaller height); null when the bytes are identical'),
    changedPixels: count.describe("changed pixels of the compared area, outside the ignored rectangles: pixelmatch's count at this threshold"),
    antiAliasedPixels: count.describe('pixels that differ beyond the threshold but are anti-aliasing (0 when includeAA)'),
    extension: z
      .object({
        pixels: count.describe('pixels only one side has'),
        rects: z.array(pixelRectSchema.extend({ side: z.enum(['a', 'b']) })),
      })
      .nullable()
      .describe('the rows and columns only one side has, when the sizes differ; null when they are the same'),
    regions: z
      .array(pixelRegionSchema)
      .describe('changed pixels clustered into rectangles, then the extension rectangles; in reading order, at most maxRegions pixel regions'),
    regionGap: count.describe('changes about this many device pixels apart or closer share a region (it grows when there would be more than maxRegions)'),
    ignored: z.array(pixelRectSchema).describe('the ignored rectangles as applied (clipped to the compared area)'),
    diffImage: z
      .object({
        path: z.string().nullable().describe('where it was written; null when returned as bytes only'),
        width: z.number().int(),
        height: z.number().int(),
      })
      .nullable()
      .describe(
        'the diff image (red: changed, yellow: anti-aliased, blue tint: extension, over A dimmed to grey); null when not asked for or nothing was decoded',
      ),
  })
  .describe('Two screenshots compared pixel by pixel with pixelmatch definitions');

export type PixelComparisonResult = z.infer<typeof pixelComparisonSchema>;
export type PixelRect = z.infer<typeof pixelRectSchema>;
export type PixelRegion = z.infer<typeof pixelRegionSchema>;
