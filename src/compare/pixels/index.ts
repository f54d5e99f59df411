/**
 * The screenshot pixel comparison: two PNGs (files or bytes) compared with
 * pixelmatch's definitions, byte-identical files short-circuited, regions,
 * a diff image and before/after tiles.
 */
export { comparePngFiles, comparePngBytes, DEFAULT_PIXEL_THRESHOLD, DEFAULT_MAX_REGIONS, type PixelCompareOptions, type PixelComparison } from './compare';
export { pixelComparisonSchema, pixelRectSchema, pixelRegionSchema, type PixelComparisonResult, type PixelRect, type PixelRegion } from './schema';
export { PixelInputError, PngInputError } from './readPng';
export { DIFF_COLOURS } from './diffImage';
export { DEFAULT_TILE_MAX_SIDE, DEFAULT_TILE_PADDING, type RegionTile, type TileBox, type TileOptions } from './tiles';
export { stopRulesWorker } from './rulesWorkerPool';
