;; The pixel comparison's hot loops in WebAssembly SIMD (16 bytes at a time),
;; assembled by scripts/build-workers.js into generated/pixelKernels.ts and run
;; by kernels.ts over its own memory (which holds image A and the diff image's
;; scanlines). Each function gives exactly the bytes of its JavaScript twin:
;;   unfilterUp  — raster.ts's Up-filter loop (bytewise add of the row above)
;;   levelsRgb, levelsRgba — diffImage.ts levelsInto (a pixel's grey level)
;;   overlayMarks — diffImage.ts drawRows's marks over the grey levels
;;   setupRules, rulesRows — rowRules.ts runRowRules, pixelRules.ts's rules:
;;     pixelmatch's colour delta and anti-aliasing test, with the floating-point
;;     steps in the same order, so every pixel falls the same way
;; test/compare/pixelKernels.test.ts holds them to that on random and real data.
(module
  ;; Shared, so the rules worker's instance works in the comparison's own memory (kernels.ts).
  (import "env" "memory" (memory 1 16384 shared))
  ;; Up filter undone in place: n bytes at $at, each plus the byte $stride before it.
  ;; Needs stride >= 16: the 16 bytes read above must all lie in the row above.
  (func (export "unfilterUp") (param $at i32) (param $stride i32) (param $n i32)
    (local $i i32) (local $end i32)
    (local.set $i (local.get $at))
    (local.set $end (i32.add (local.get $at) (local.get $n)))
    (block $wide_done
      (loop $wide
        (br_if $wide_done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $end)))
        (v128.store (local.get $i)
          (i8x16.add (v128.load (local.get $i)) (v128.load (i32.sub (local.get $i) (local.get $stride)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $wide)))
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (i32.store8 (local.get $i)
          (i32.add (i32.load8_u (local.get $i)) (i32.load8_u (i32.sub (local.get $i) (local.get $stride)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $one))))

  ;; One pixel's level: base + (luma >> 10), luma = 77 R + 150 G + 29 B, a translucent pixel seen on white.
  (func $level (param $r i32) (param $g i32) (param $b i32) (param $a i32) (param $base i32) (result i32)
    (local $luma i32)
    (local.set $luma (i32.add (i32.add (i32.mul (local.get $r) (i32.const 77)) (i32.mul (local.get $g) (i32.const 150)))
                              (i32.mul (local.get $b) (i32.const 29))))
    (if (i32.ne (local.get $a) (i32.const 255))
      (then
        (local.set $luma
          (i32.sub (i32.const 65280)
            (i32.div_u (i32.add (i32.mul (i32.sub (i32.const 65280) (local.get $luma)) (local.get $a)) (i32.const 254))
                       (i32.const 255))))))
    (i32.add (local.get $base) (i32.shr_u (local.get $luma) (i32.const 10))))

  ;; Levels of n RGB pixels at $src into n bytes at $dst.
  (func (export "levelsRgb") (param $src i32) (param $n i32) (param $dst i32) (param $base i32)
    (local $end i32) (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $r v128) (local $g v128) (local $b v128)
    (local $lo v128) (local $hi v128)
    (local.set $end (i32.add (local.get $dst) (local.get $n)))
    (block $wide_done
      (loop $wide
        (br_if $wide_done (i32.gt_u (i32.add (local.get $dst) (i32.const 16)) (local.get $end)))
        (local.set $v0 (v128.load (local.get $src)))
        (local.set $v1 (v128.load offset=16 (local.get $src)))
        (local.set $v2 (v128.load offset=32 (local.get $src)))
        (local.set $r (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 17 20 23 26 29
          (i8x16.shuffle 0 3 6 9 12 15 18 21 24 27 30 0 0 0 0 0 (local.get $v0) (local.get $v1)) (local.get $v2)))
        (local.set $g (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 18 21 24 27 30
          (i8x16.shuffle 1 4 7 10 13 16 19 22 25 28 31 0 0 0 0 0 (local.get $v0) (local.get $v1)) (local.get $v2)))
        (local.set $b (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 16 19 22 25 28 31
          (i8x16.shuffle 2 5 8 11 14 17 20 23 26 29 0 0 0 0 0 0 (local.get $v0) (local.get $v1)) (local.get $v2)))
        (local.set $lo (i16x8.shr_u
          (i16x8.add (i16x8.add (i16x8.extmul_low_i8x16_u (local.get $r) (v128.const i8x16 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77))
                                (i16x8.extmul_low_i8x16_u (local.get $g) (v128.const i8x16 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150)))
                     (i16x8.extmul_low_i8x16_u (local.get $b) (v128.const i8x16 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29)))
          (i32.const 10)))
        (local.set $hi (i16x8.shr_u
          (i16x8.add (i16x8.add (i16x8.extmul_high_i8x16_u (local.get $r) (v128.const i8x16 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77))
                                (i16x8.extmul_high_i8x16_u (local.get $g) (v128.const i8x16 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150)))
                     (i16x8.extmul_high_i8x16_u (local.get $b) (v128.const i8x16 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29)))
          (i32.const 10)))
        (v128.store (local.get $dst) (i8x16.add (i8x16.narrow_i16x8_u (local.get $lo) (local.get $hi)) (i8x16.splat (local.get $base))))
        (local.set $src (i32.add (local.get $src) (i32.const 48)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $wide)))
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (i32.store8 (local.get $dst)
          (call $level (i32.load8_u (local.get $src)) (i32.load8_u offset=1 (local.get $src)) (i32.load8_u offset=2 (local.get $src))
                       (i32.const 255) (local.get $base)))
        (local.set $src (i32.add (local.get $src) (i32.const 3)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (br $one))))

  ;; Levels of n RGBA pixels at $src into n bytes at $dst; 16 opaque pixels at a time, translucent ones one by one.
  (func (export "levelsRgba") (param $src i32) (param $n i32) (param $dst i32) (param $base i32)
    (local $end i32) (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128)
    (local $r v128) (local $g v128) (local $b v128) (local $a v128) (local $lo v128) (local $hi v128) (local $k i32)
    (local.set $end (i32.add (local.get $dst) (local.get $n)))
    (block $wide_done
      (loop $wide
        (br_if $wide_done (i32.gt_u (i32.add (local.get $dst) (i32.const 16)) (local.get $end)))
        (local.set $v0 (v128.load (local.get $src)))
        (local.set $v1 (v128.load offset=16 (local.get $src)))
        (local.set $v2 (v128.load offset=32 (local.get $src)))
        (local.set $v3 (v128.load offset=48 (local.get $src)))
        (local.set $a (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
          (i8x16.shuffle 3 7 11 15 19 23 27 31 0 0 0 0 0 0 0 0 (local.get $v0) (local.get $v1))
          (i8x16.shuffle 3 7 11 15 19 23 27 31 0 0 0 0 0 0 0 0 (local.get $v2) (local.get $v3))))
        (if (i8x16.all_true (i8x16.eq (local.get $a) (v128.const i8x16 255 255 255 255 255 255 255 255 255 255 255 255 255 255 255 255)))
          (then
            (local.set $r (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
              (i8x16.shuffle 0 4 8 12 16 20 24 28 0 0 0 0 0 0 0 0 (local.get $v0) (local.get $v1))
              (i8x16.shuffle 0 4 8 12 16 20 24 28 0 0 0 0 0 0 0 0 (local.get $v2) (local.get $v3))))
            (local.set $g (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
              (i8x16.shuffle 1 5 9 13 17 21 25 29 0 0 0 0 0 0 0 0 (local.get $v0) (local.get $v1))
              (i8x16.shuffle 1 5 9 13 17 21 25 29 0 0 0 0 0 0 0 0 (local.get $v2) (local.get $v3))))
            (local.set $b (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
              (i8x16.shuffle 2 6 10 14 18 22 26 30 0 0 0 0 0 0 0 0 (local.get $v0) (local.get $v1))
              (i8x16.shuffle 2 6 10 14 18 22 26 30 0 0 0 0 0 0 0 0 (local.get $v2) (local.get $v3))))
            (local.set $lo (i16x8.shr_u
              (i16x8.add (i16x8.add (i16x8.extmul_low_i8x16_u (local.get $r) (v128.const i8x16 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77))
                                    (i16x8.extmul_low_i8x16_u (local.get $g) (v128.const i8x16 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150)))
                         (i16x8.extmul_low_i8x16_u (local.get $b) (v128.const i8x16 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29)))
              (i32.const 10)))
            (local.set $hi (i16x8.shr_u
              (i16x8.add (i16x8.add (i16x8.extmul_high_i8x16_u (local.get $r) (v128.const i8x16 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77 77))
                                    (i16x8.extmul_high_i8x16_u (local.get $g) (v128.const i8x16 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150 150)))
                         (i16x8.extmul_high_i8x16_u (local.get $b) (v128.const i8x16 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29 29)))
              (i32.const 10)))
            (v128.store (local.get $dst) (i8x16.add (i8x16.narrow_i16x8_u (local.get $lo) (local.get $hi)) (i8x16.splat (local.get $base)))))
          (else
            (local.set $k (i32.const 0))
            (loop $each
              (i32.store8 (i32.add (local.get $dst) (local.get $k))
                (call $level
                  (i32.load8_u (i32.add (local.get $src) (i32.shl (local.get $k) (i32.const 2))))
                  (i32.load8_u offset=1 (i32.add (local.get $src) (i32.shl (local.get $k) (i32.const 2))))
                  (i32.load8_u offset=2 (i32.add (local.get $src) (i32.shl (local.get $k) (i32.const 2))))
                  (i32.load8_u offset=3 (i32.add (local.get $src) (i32.shl (local.get $k) (i32.const 2))))
                  (local.get $base)))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br_if $each (i32.lt_u (local.get $k) (i32.const 16))))))
        (local.set $src (i32.add (local.get $src) (i32.const 64)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $wide)))
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (i32.store8 (local.get $dst)
          (call $level (i32.load8_u (local.get $src)) (i32.load8_u offset=1 (local.get $src)) (i32.load8_u offset=2 (local.get $src))
                       (i32.load8_u offset=3 (local.get $src)) (local.get $base)))
        (local.set $src (i32.add (local.get $src) (i32.const 4)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 1)))
        (br $one))))

  ;; The marks over a row of the diff image: each of n bytes at $out becomes $changed where
  ;; the mark at $marks is 1 (a changed pixel) and $aa where it is 2 (an anti-aliased one).
  (func (export "overlayMarks") (param $marks i32) (param $out i32) (param $n i32) (param $changed i32) (param $aa i32)
    (local $end i32) (local $m v128) (local $mark i32)
    (local.set $end (i32.add (local.get $out) (local.get $n)))
    (block $wide_done
      (loop $wide
        (br_if $wide_done (i32.gt_u (i32.add (local.get $out) (i32.const 16)) (local.get $end)))
        (local.set $m (v128.load (local.get $marks)))
        (v128.store (local.get $out)
          (v128.bitselect (i8x16.splat (local.get $aa))
            (v128.bitselect (i8x16.splat (local.get $changed)) (v128.load (local.get $out))
              (i8x16.eq (local.get $m) (v128.const i8x16 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1)))
            (i8x16.eq (local.get $m) (v128.const i8x16 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2 2))))
        (local.set $marks (i32.add (local.get $marks) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (br $wide)))
    (block $done
      (loop $one
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $mark (i32.load8_u (local.get $marks)))
        (if (i32.eq (local.get $mark) (i32.const 1)) (then (i32.store8 (local.get $out) (local.get $changed))))
        (if (i32.eq (local.get $mark) (i32.const 2)) (then (i32.store8 (local.get $out) (local.get $aa))))
        (local.set $marks (i32.add (local.get $marks) (i32.const 1)))
        (local.set $out (i32.add (local.get $out) (i32.const 1)))
        (br $one))))

  ;; ---- pixelmatch's rules (rowRules.ts runRowRules), set up by setupRules, run by rulesRows ----
  (global $aData (mut i32) (i32.const 0))
  (global $aStride (mut i32) (i32.const 0))
  (global $bData (mut i32) (i32.const 0))
  (global $bStride (mut i32) (i32.const 0))
  (global $channels (mut i32) (i32.const 0))
  (global $width (mut i32) (i32.const 0))
  (global $height (mut i32) (i32.const 0))
  (global $maxDelta (mut f64) (f64.const 0))
  (global $includeAA (mut i32) (i32.const 0))
  (global $marks (mut i32) (i32.const 0))
  (global $rowMarked (mut i32) (i32.const 0))
  (global $cellCount (mut i32) (i32.const 0))
  (global $cellMinX (mut i32) (i32.const 0))
  (global $cellMinY (mut i32) (i32.const 0))
  (global $cellMaxX (mut i32) (i32.const 0))
  (global $cellMaxY (mut i32) (i32.const 0))
  (global $cellSize (mut i32) (i32.const 0))
  (global $cellCols (mut i32) (i32.const 0))
  (global $ignore (mut i32) (i32.const 0))
  (global $ignoreCount (mut i32) (i32.const 0))
  (global $lumaA (mut i32) (i32.const 0))
  (global $lumaB (mut i32) (i32.const 0))
  (global $changed (mut i32) (i32.const 0))
  (global $antialiased (mut i32) (i32.const 0))

  ;; Where everything lies: each image's pixel (x, y) at data + y × stride + x × channels; row y's
  ;; marks at marks + y × width (zeroed by its first mark, which also sets the byte rowMarked + y);
  ;; the cell grid's five i32 arrays; the ignored rectangles as i32 quads (x, y, width, height);
  ;; each image's brightness rows (lumaRow): 8 i32 row tags (-1: empty; emptied here), then 8 rows of f64.
  (func (export "setupRules")
    (param $ad i32) (param $as i32) (param $bd i32) (param $bs i32) (param $ch i32) (param $w i32) (param $h i32)
    (param $md f64) (param $aa i32) (param $marksAt i32) (param $markedAt i32)
    (param $cc i32) (param $cx0 i32) (param $cy0 i32) (param $cx1 i32) (param $cy1 i32) (param $cs i32) (param $cols i32)
    (param $ig i32) (param $ign i32) (param $la i32) (param $lb i32)
    (global.set $aData (local.get $ad)) (global.set $aStride (local.get $as))
    (global.set $bData (local.get $bd)) (global.set $bStride (local.get $bs))
    (global.set $channels (local.get $ch)) (global.set $width (local.get $w)) (global.set $height (local.get $h))
    (global.set $maxDelta (local.get $md)) (global.set $includeAA (local.get $aa))
    (global.set $marks (local.get $marksAt)) (global.set $rowMarked (local.get $markedAt))
    (global.set $cellCount (local.get $cc)) (global.set $cellMinX (local.get $cx0)) (global.set $cellMinY (local.get $cy0))
    (global.set $cellMaxX (local.get $cx1)) (global.set $cellMaxY (local.get $cy1))
    (global.set $cellSize (local.get $cs)) (global.set $cellCols (local.get $cols))
    (global.set $ignore (local.get $ig)) (global.set $ignoreCount (local.get $ign))
    (global.set $lumaA (local.get $la)) (global.set $lumaB (local.get $lb))
    ;; Both brightness caches emptied: every row tag -1.
    (memory.fill (local.get $la) (i32.const 0xff) (i32.const 32))
    (memory.fill (local.get $lb) (i32.const 0xff) (i32.const 32))
    (global.set $changed (i32.const 0)) (global.set $antialiased (i32.const 0)))

  (func (export "changedCount") (result i32) (global.get $changed))
  (func (export "antialiasedCount") (result i32) (global.get $antialiased))

  ;; The pixel at $p as one integer (RGB: its three bytes; RGBA: all four), for equality.
  (func $colourAt (param $p i32) (result i32)
    (if (result i32) (i32.eq (global.get $channels) (i32.const 4))
      (then (i32.load (local.get $p)))
      (else (i32.and (i32.load (local.get $p)) (i32.const 0xffffff)))))

  ;; A channel blended onto white by alpha (0–1): 255 + (c - 255) × alpha.
  (func $onWhite (param $c f64) (param $alpha f64) (result f64)
    (f64.add (f64.const 255) (f64.mul (f64.sub (local.get $c) (f64.const 255)) (local.get $alpha))))

  ;; Brightness Y of the pixel at $p, blended onto white (pixelRules.ts RowCache.lumas).
  (func $luma (param $p i32) (result f64)
    (local $r f64) (local $g f64) (local $b f64) (local $a i32) (local $f f64)
    (local.set $r (f64.convert_i32_u (i32.load8_u (local.get $p))))
    (local.set $g (f64.convert_i32_u (i32.load8_u offset=1 (local.get $p))))
    (local.set $b (f64.convert_i32_u (i32.load8_u offset=2 (local.get $p))))
    (if (i32.eq (global.get $channels) (i32.const 4))
      (then
        (local.set $a (i32.load8_u offset=3 (local.get $p)))
        (if (i32.lt_u (local.get $a) (i32.const 255))
          (then
            (local.set $f (f64.div (f64.convert_i32_u (local.get $a)) (f64.const 255)))
            (local.set $r (call $onWhite (local.get $r) (local.get $f)))
            (local.set $g (call $onWhite (local.get $g) (local.get $f)))
            (local.set $b (call $onWhite (local.get $b) (local.get $f)))))))
    (f64.add (f64.add (f64.mul (local.get $r) (f64.const 0.29889531)) (f64.mul (local.get $g) (f64.const 0.58662247)))
             (f64.mul (local.get $b) (f64.const 0.11448223))))

  ;; The signed YIQ delta between the pixels at $pa (A) and $pb (B), which differ (pixelRules.ts colourDelta).
  (func $colourDelta (param $pa i32) (param $pb i32) (result f64)
    (local $r1 f64) (local $g1 f64) (local $b1 f64) (local $r2 f64) (local $g2 f64) (local $b2 f64)
    (local $a1 i32) (local $a2 i32) (local $f f64) (local $y1 f64) (local $y2 f64) (local $y f64) (local $i f64) (local $q f64)
    (local $delta f64)
    (local.set $r1 (f64.convert_i32_u (i32.load8_u (local.get $pa))))
    (local.set $g1 (f64.convert_i32_u (i32.load8_u offset=1 (local.get $pa))))
    (local.set $b1 (f64.convert_i32_u (i32.load8_u offset=2 (local.get $pa))))
    (local.set $r2 (f64.convert_i32_u (i32.load8_u (local.get $pb))))
    (local.set $g2 (f64.convert_i32_u (i32.load8_u offset=1 (local.get $pb))))
    (local.set $b2 (f64.convert_i32_u (i32.load8_u offset=2 (local.get $pb))))
    (if (i32.eq (global.get $channels) (i32.const 4))
      (then
        (local.set $a1 (i32.load8_u offset=3 (local.get $pa)))
        (local.set $a2 (i32.load8_u offset=3 (local.get $pb)))
        (if (i32.lt_u (local.get $a1) (i32.const 255))
          (then
            (local.set $f (f64.div (f64.convert_i32_u (local.get $a1)) (f64.const 255)))
            (local.set $r1 (call $onWhite (local.get $r1) (local.get $f)))
            (local.set $g1 (call $onWhite (local.get $g1) (local.get $f)))
            (local.set $b1 (call $onWhite (local.get $b1) (local.get $f)))))
        (if (i32.lt_u (local.get $a2) (i32.const 255))
          (then
            (local.set $f (f64.div (f64.convert_i32_u (local.get $a2)) (f64.const 255)))
            (local.set $r2 (call $onWhite (local.get $r2) (local.get $f)))
            (local.set $g2 (call $onWhite (local.get $g2) (local.get $f)))
            (local.set $b2 (call $onWhite (local.get $b2) (local.get $f)))))))
    (local.set $y1 (f64.add (f64.add (f64.mul (local.get $r1) (f64.const 0.29889531)) (f64.mul (local.get $g1) (f64.const 0.58662247)))
                            (f64.mul (local.get $b1) (f64.const 0.11448223))))
    (local.set $y2 (f64.add (f64.add (f64.mul (local.get $r2) (f64.const 0.29889531)) (f64.mul (local.get $g2) (f64.const 0.58662247)))
                            (f64.mul (local.get $b2) (f64.const 0.11448223))))
    (local.set $y (f64.sub (local.get $y1) (local.get $y2)))
    (local.set $i (f64.sub
      (f64.sub (f64.sub (f64.mul (local.get $r1) (f64.const 0.59597799)) (f64.mul (local.get $g1) (f64.const 0.2741761)))
               (f64.mul (local.get $b1) (f64.const 0.32180189)))
      (f64.sub (f64.sub (f64.mul (local.get $r2) (f64.const 0.59597799)) (f64.mul (local.get $g2) (f64.const 0.2741761)))
               (f64.mul (local.get $b2) (f64.const 0.32180189)))))
    (local.set $q (f64.sub
      (f64.add (f64.sub (f64.mul (local.get $r1) (f64.const 0.21147017)) (f64.mul (local.get $g1) (f64.const 0.52261711)))
               (f64.mul (local.get $b1) (f64.const 0.31114694)))
      (f64.add (f64.sub (f64.mul (local.get $r2) (f64.const 0.21147017)) (f64.mul (local.get $g2) (f64.const 0.52261711)))
               (f64.mul (local.get $b2) (f64.const 0.31114694)))))
    (local.set $delta (f64.add
      (f64.add (f64.mul (f64.mul (f64.const 0.5053) (local.get $y)) (local.get $y))
               (f64.mul (f64.mul (f64.const 0.299) (local.get $i)) (local.get $i)))
      (f64.mul (f64.mul (f64.const 0.1957) (local.get $q)) (local.get $q))))
    (if (result f64) (f64.gt (local.get $y1) (local.get $y2))
      (then (f64.neg (local.get $delta)))
      (else (local.get $delta))))

  ;; Whether (x, y) of the image at $data has 3 or more neighbours identical to it, the edge counting as one.
  (func $hasManySiblings (param $data i32) (param $stride i32) (param $x i32) (param $y i32) (result i32)
    (local $x0 i32) (local $y0 i32) (local $x2 i32) (local $y2 i32) (local $centre i32) (local $same i32) (local $nx i32)
    (local $row0 i32) (local $row1 i32) (local $row2 i32) (local $c i32) (local $mask i32) (local $p0 i32) (local $p1 i32) (local $p2 i32)
    (local.set $c (global.get $channels))
    (local.set $x0 (select (i32.sub (local.get $x) (i32.const 1)) (i32.const 0) (i32.gt_s (local.get $x) (i32.const 0))))
    (local.set $y0 (select (i32.sub (local.get $y) (i32.const 1)) (i32.const 0) (i32.gt_s (local.get $y) (i32.const 0))))
    (local.set $x2 (select (i32.add (local.get $x) (i32.const 1)) (i32.sub (global.get $width) (i32.const 1))
      (i32.lt_s (local.get $x) (i32.sub (global.get $width) (i32.const 1)))))
    (local.set $y2 (select (i32.add (local.get $y) (i32.const 1)) (i32.sub (global.get $height) (i32.const 1))
      (i32.lt_s (local.get $y) (i32.sub (global.get $height) (i32.const 1)))))
    (local.set $row0 (i32.add (local.get $data) (i32.mul (local.get $y0) (local.get $stride))))
    (local.set $row1 (i32.add (local.get $data) (i32.mul (local.get $y) (local.get $stride))))
    (local.set $row2 (i32.add (local.get $data) (i32.mul (local.get $y2) (local.get $stride))))
    (local.set $mask (select (i32.const -1) (i32.const 0xffffff) (i32.eq (local.get $c) (i32.const 4))))
    (local.set $centre (i32.and (i32.load (i32.add (local.get $row1) (i32.mul (local.get $x) (local.get $c)))) (local.get $mask)))
    (local.set $same (i32.or (i32.or (i32.eq (local.get $x) (local.get $x0)) (i32.eq (local.get $x) (local.get $x2)))
                             (i32.or (i32.eq (local.get $y) (local.get $y0)) (i32.eq (local.get $y) (local.get $y2)))))
    ;; Inside the image: the 8 neighbours counted at once ($p0, $p1, $p2: column x - 1 of rows y - 1, y, y + 1).
    (if (i32.eqz (local.get $same))
      (then
        (local.set $p0 (i32.add (local.get $row0) (i32.mul (local.get $x0) (local.get $c))))
        (local.set $p1 (i32.add (local.get $row1) (i32.mul (local.get $x0) (local.get $c))))
        (local.set $p2 (i32.add (local.get $row2) (i32.mul (local.get $x0) (local.get $c))))
        (return (i32.gt_u
          (i32.add (i32.add (i32.add (i32.eq (i32.and (i32.load (i32.add (local.get $p0) (i32.const 0))) (local.get $mask)) (local.get $centre))
        (i32.eq (i32.and (i32.load (i32.add (local.get $p0) (local.get $c))) (local.get $mask)) (local.get $centre)))
        (i32.add (i32.eq (i32.and (i32.load (i32.add (local.get $p0) (i32.shl (local.get $c) (i32.const 1)))) (local.get $mask)) (local.get $centre))
        (i32.eq (i32.and (i32.load (i32.add (local.get $p1) (i32.const 0))) (local.get $mask)) (local.get $centre))))
        (i32.add (i32.add (i32.eq (i32.and (i32.load (i32.add (local.get $p1) (i32.shl (local.get $c) (i32.const 1)))) (local.get $mask)) (local.get $centre))
        (i32.eq (i32.and (i32.load (i32.add (local.get $p2) (i32.const 0))) (local.get $mask)) (local.get $centre)))
        (i32.add (i32.eq (i32.and (i32.load (i32.add (local.get $p2) (local.get $c))) (local.get $mask)) (local.get $centre))
        (i32.eq (i32.and (i32.load (i32.add (local.get $p2) (i32.shl (local.get $c) (i32.const 1)))) (local.get $mask)) (local.get $centre)))))
          (i32.const 2)))))
    ;; At an edge (which counts as one): the neighbours there are.
    (local.set $nx (local.get $x0))
    (block $none
      (loop $column
        (br_if $none (i32.gt_s (local.get $nx) (local.get $x2)))
        (if (i32.and (i32.ne (local.get $y0) (local.get $y))
                     (i32.eq (i32.and (i32.load (i32.add (local.get $row0) (i32.mul (local.get $nx) (local.get $c)))) (local.get $mask)) (local.get $centre)))
          (then
            (local.set $same (i32.add (local.get $same) (i32.const 1)))
            (if (i32.gt_s (local.get $same) (i32.const 2)) (then (return (i32.const 1))))))
        (if (i32.and (i32.ne (local.get $nx) (local.get $x))
                     (i32.eq (i32.and (i32.load (i32.add (local.get $row1) (i32.mul (local.get $nx) (local.get $c)))) (local.get $mask)) (local.get $centre)))
          (then
            (local.set $same (i32.add (local.get $same) (i32.const 1)))
            (if (i32.gt_s (local.get $same) (i32.const 2)) (then (return (i32.const 1))))))
        (if (i32.and (i32.ne (local.get $y2) (local.get $y))
                     (i32.eq (i32.and (i32.load (i32.add (local.get $row2) (i32.mul (local.get $nx) (local.get $c)))) (local.get $mask)) (local.get $centre)))
          (then
            (local.set $same (i32.add (local.get $same) (i32.const 1)))
            (if (i32.gt_s (local.get $same) (i32.const 2)) (then (return (i32.const 1))))))
        (local.set $nx (i32.add (local.get $nx) (i32.const 1)))
        (br $column)))
    (i32.const 0))

  ;; The brightness of every pixel of row y of the image at $data, as f64s, kept in one of the 8 rows
  ;; of the cache at $cache (slot y mod 8; pixelRules.ts RowCache.lumas): where the row starts.
  (func $lumaRow (param $data i32) (param $stride i32) (param $cache i32) (param $y i32) (result i32)
    (local $slot i32) (local $row i32) (local $p i32) (local $end i32) (local $out i32) (local $v v128)
    (local.set $slot (i32.and (local.get $y) (i32.const 7)))
    (local.set $row (i32.add (i32.add (local.get $cache) (i32.const 32))
                             (i32.mul (local.get $slot) (i32.shl (global.get $width) (i32.const 3)))))
    (if (i32.eq (i32.load (i32.add (local.get $cache) (i32.shl (local.get $slot) (i32.const 2)))) (local.get $y))
      (then (return (local.get $row))))
    (i32.store (i32.add (local.get $cache) (i32.shl (local.get $slot) (i32.const 2))) (local.get $y))
    (local.set $p (i32.add (local.get $data) (i32.mul (local.get $y) (local.get $stride))))
    (local.set $end (i32.add (local.get $p) (i32.mul (global.get $width) (global.get $channels))))
    (local.set $out (local.get $row))
    (if (i32.eq (global.get $channels) (i32.const 4))
      (then
        (block $done4
          (loop $each4
            (br_if $done4 (i32.ge_u (local.get $p) (local.get $end)))
            (f64.store (local.get $out) (call $luma (local.get $p)))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (local.set $out (i32.add (local.get $out) (i32.const 8)))
            (br $each4))))
      (else
        ;; Opaque RGB: $luma's sum, written out here (a call per pixel costs more than the sum), four
        ;; pixels at a time in two f64x2 lanes each (the same products and sums, in the same order).
        (block $done4px
          (loop $four
            (br_if $done4px (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
            (local.set $v (v128.load (local.get $p)))
            (v128.store (local.get $out)
              (f64x2.add
                (f64x2.add
                  (f64x2.mul (f64x2.convert_low_i32x4_u (i8x16.shuffle 0 16 16 16 3 16 16 16 16 16 16 16 16 16 16 16 (local.get $v) (v128.const i64x2 0 0)))
                             (v128.const f64x2 0.29889531 0.29889531))
                  (f64x2.mul (f64x2.convert_low_i32x4_u (i8x16.shuffle 1 16 16 16 4 16 16 16 16 16 16 16 16 16 16 16 (local.get $v) (v128.const i64x2 0 0)))
                             (v128.const f64x2 0.58662247 0.58662247)))
                (f64x2.mul (f64x2.convert_low_i32x4_u (i8x16.shuffle 2 16 16 16 5 16 16 16 16 16 16 16 16 16 16 16 (local.get $v) (v128.const i64x2 0 0)))
                           (v128.const f64x2 0.11448223 0.11448223))))
            (v128.store offset=16 (local.get $out)
              (f64x2.add
                (f64x2.add
                  (f64x2.mul (f64x2.convert_low_i32x4_u (i8x16.shuffle 6 16 16 16 9 16 16 16 16 16 16 16 16 16 16 16 (local.get $v) (v128.const i64x2 0 0)))
                             (v128.const f64x2 0.29889531 0.29889531))
                  (f64x2.mul (f64x2.convert_low_i32x4_u (i8x16.shuffle 7 16 16 16 10 16 16 16 16 16 16 16 16 16 16 16 (local.get $v) (v128.const i64x2 0 0)))
                             (v128.const f64x2 0.58662247 0.58662247)))
                (f64x2.mul (f64x2.convert_low_i32x4_u (i8x16.shuffle 8 16 16 16 11 16 16 16 16 16 16 16 16 16 16 16 (local.get $v) (v128.const i64x2 0 0)))
                           (v128.const f64x2 0.11448223 0.11448223))))
            (local.set $p (i32.add (local.get $p) (i32.const 12)))
            (local.set $out (i32.add (local.get $out) (i32.const 32)))
            (br $four)))
        (block $done3
          (loop $each3
            (br_if $done3 (i32.ge_u (local.get $p) (local.get $end)))
            (f64.store (local.get $out)
              (f64.add (f64.add (f64.mul (f64.convert_i32_u (i32.load8_u (local.get $p))) (f64.const 0.29889531))
                                (f64.mul (f64.convert_i32_u (i32.load8_u offset=1 (local.get $p))) (f64.const 0.58662247)))
                       (f64.mul (f64.convert_i32_u (i32.load8_u offset=2 (local.get $p))) (f64.const 0.11448223))))
            (local.set $p (i32.add (local.get $p) (i32.const 3)))
            (local.set $out (i32.add (local.get $out) (i32.const 8)))
            (br $each3)))))
    (local.get $row))

  ;; Whether (x, y) of the image at $data looks like anti-aliasing, $other being the other image (pixelRules.ts isAntialiased).
  ;; $row0, $row1, $row2: the brightness rows (lumaRow) of rows y - 1, y, y + 1, clamped to the image.
  (func $isAntialiased (param $data i32) (param $stride i32) (param $row0 i32) (param $row1 i32) (param $row2 i32)
    (param $other i32) (param $otherStride i32) (param $x i32) (param $y i32) (result i32)
    (local $x0 i32) (local $y0 i32) (local $x2 i32) (local $y2 i32) (local $nx i32) (local $ny i32) (local $c i32)
    (local $lumas i32)
    (local $centre f64) (local $delta f64) (local $min f64) (local $max f64) (local $zeroes i32)
    (local $minX i32) (local $minY i32) (local $maxX i32) (local $maxY i32) (local $at i32)
    (local.set $c (global.get $channels))
    (local.set $x0 (select (i32.sub (local.get $x) (i32.const 1)) (i32.const 0) (i32.gt_s (local.get $x) (i32.const 0))))
    (local.set $y0 (select (i32.sub (local.get $y) (i32.const 1)) (i32.const 0) (i32.gt_s (local.get $y) (i32.const 0))))
    (local.set $x2 (select (i32.add (local.get $x) (i32.const 1)) (i32.sub (global.get $width) (i32.const 1))
      (i32.lt_s (local.get $x) (i32.sub (global.get $width) (i32.const 1)))))
    (local.set $y2 (select (i32.add (local.get $y) (i32.const 1)) (i32.sub (global.get $height) (i32.const 1))
      (i32.lt_s (local.get $y) (i32.sub (global.get $height) (i32.const 1)))))
    (local.set $centre (f64.load (i32.add (local.get $row1) (i32.shl (local.get $x) (i32.const 3)))))
    (local.set $zeroes (i32.or (i32.or (i32.eq (local.get $x) (local.get $x0)) (i32.eq (local.get $x) (local.get $x2)))
                               (i32.or (i32.eq (local.get $y) (local.get $y0)) (i32.eq (local.get $y) (local.get $y2)))))
    (block $decided
    ;; Inside the image: the 8 neighbours written out, in pixelmatch's order (column by column, top
    ;; to bottom); $at is column x - 1's offset in a brightness row.
    (if (i32.eqz (local.get $zeroes))
      (then
        (local.set $at (i32.shl (local.get $x0) (i32.const 3)))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=0 (i32.add (local.get $row0) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x0)) (local.set $minY (local.get $y0)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x0)) (local.set $maxY (local.get $y0))))))))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=0 (i32.add (local.get $row1) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x0)) (local.set $minY (local.get $y)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x0)) (local.set $maxY (local.get $y))))))))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=0 (i32.add (local.get $row2) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x0)) (local.set $minY (local.get $y2)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x0)) (local.set $maxY (local.get $y2))))))))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=8 (i32.add (local.get $row0) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x)) (local.set $minY (local.get $y0)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x)) (local.set $maxY (local.get $y0))))))))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=8 (i32.add (local.get $row2) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x)) (local.set $minY (local.get $y2)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x)) (local.set $maxY (local.get $y2))))))))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=16 (i32.add (local.get $row0) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x2)) (local.set $minY (local.get $y0)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x2)) (local.set $maxY (local.get $y0))))))))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=16 (i32.add (local.get $row1) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x2)) (local.set $minY (local.get $y)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x2)) (local.set $maxY (local.get $y))))))))
        (local.set $delta (f64.sub (local.get $centre) (f64.load offset=16 (i32.add (local.get $row2) (local.get $at)))))
        (if (f64.eq (local.get $delta) (f64.const 0))
          (then
            (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
            (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
          (else
            (if (f64.lt (local.get $delta) (local.get $min))
              (then (local.set $min (local.get $delta)) (local.set $minX (local.get $x2)) (local.set $minY (local.get $y2)))
              (else
                (if (f64.gt (local.get $delta) (local.get $max))
                  (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $x2)) (local.set $maxY (local.get $y2))))))))
        (br $decided)))
    ;; At an edge: the neighbours there are, in the same order.
    (local.set $nx (local.get $x0))
    (block $columns_done
      (loop $column
        (br_if $columns_done (i32.gt_s (local.get $nx) (local.get $x2)))
        (local.set $ny (local.get $y0))
        (local.set $lumas (local.get $row0))
        (block $rows_done
          (loop $row
            (br_if $rows_done (i32.gt_s (local.get $ny) (local.get $y2)))
            (if (i32.eqz (i32.and (i32.eq (local.get $nx) (local.get $x)) (i32.eq (local.get $ny) (local.get $y))))
              (then
                (local.set $delta (f64.sub (local.get $centre)
                  (f64.load (i32.add (local.get $lumas) (i32.shl (local.get $nx) (i32.const 3))))))
                (if (f64.eq (local.get $delta) (f64.const 0))
                  (then
                    (local.set $zeroes (i32.add (local.get $zeroes) (i32.const 1)))
                    (if (i32.gt_s (local.get $zeroes) (i32.const 2)) (then (return (i32.const 0)))))
                  (else
                    (if (f64.lt (local.get $delta) (local.get $min))
                      (then (local.set $min (local.get $delta)) (local.set $minX (local.get $nx)) (local.set $minY (local.get $ny)))
                      (else
                        (if (f64.gt (local.get $delta) (local.get $max))
                          (then (local.set $max (local.get $delta)) (local.set $maxX (local.get $nx)) (local.set $maxY (local.get $ny))))))))))
            (local.set $ny (i32.add (local.get $ny) (i32.const 1)))
            ;; The next row's brightness (rows y0, y, y2 in turn; at an edge two of them are one row).
            (local.set $lumas (select (local.get $row1) (local.get $row2) (i32.eq (local.get $ny) (local.get $y))))
            (br $row)))
        (local.set $nx (i32.add (local.get $nx) (i32.const 1)))
        (br $column))))
    (if (i32.or (f64.eq (local.get $min) (f64.const 0)) (f64.eq (local.get $max) (f64.const 0))) (then (return (i32.const 0))))
    (if (call $hasManySiblings (local.get $data) (local.get $stride) (local.get $minX) (local.get $minY))
      (then
        (if (call $hasManySiblings (local.get $other) (local.get $otherStride) (local.get $minX) (local.get $minY))
          (then (return (i32.const 1))))))
    (if (result i32) (call $hasManySiblings (local.get $data) (local.get $stride) (local.get $maxX) (local.get $maxY))
      (then (call $hasManySiblings (local.get $other) (local.get $otherStride) (local.get $maxX) (local.get $maxY)))
      (else (i32.const 0))))

  ;; Whether (x, y) lies in an ignored rectangle.
  (func $ignored (param $x i32) (param $y i32) (result i32)
    (local $k i32) (local $r i32)
    (block $none
      (loop $each
        (br_if $none (i32.ge_u (local.get $k) (global.get $ignoreCount)))
        (local.set $r (i32.add (global.get $ignore) (i32.shl (local.get $k) (i32.const 4))))
        (if (i32.and
              (i32.and (i32.ge_s (local.get $x) (i32.load (local.get $r)))
                       (i32.lt_s (local.get $x) (i32.add (i32.load (local.get $r)) (i32.load offset=8 (local.get $r)))))
              (i32.and (i32.ge_s (local.get $y) (i32.load offset=4 (local.get $r)))
                       (i32.lt_s (local.get $y) (i32.add (i32.load offset=4 (local.get $r)) (i32.load offset=12 (local.get $r))))))
          (then (return (i32.const 1))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $each)))
    (i32.const 0))

  ;; A changed pixel recorded in its cell: the count, and the box of its changed pixels (regions.ts markCell).
  (func $markCell (param $x i32) (param $y i32)
    (local $i i32) (local $n i32)
    (local.set $i (i32.shl (i32.add (i32.mul (i32.div_u (local.get $y) (global.get $cellSize)) (global.get $cellCols))
                                    (i32.div_u (local.get $x) (global.get $cellSize))) (i32.const 2)))
    (local.set $n (i32.load (i32.add (global.get $cellCount) (local.get $i))))
    (i32.store (i32.add (global.get $cellCount) (local.get $i)) (i32.add (local.get $n) (i32.const 1)))
    (if (i32.eqz (local.get $n))
      (then
        (i32.store (i32.add (global.get $cellMinX) (local.get $i)) (local.get $x))
        (i32.store (i32.add (global.get $cellMaxX) (local.get $i)) (local.get $x))
        (i32.store (i32.add (global.get $cellMinY) (local.get $i)) (local.get $y))
        (i32.store (i32.add (global.get $cellMaxY) (local.get $i)) (local.get $y))
        (return)))
    (if (i32.lt_s (local.get $x) (i32.load (i32.add (global.get $cellMinX) (local.get $i))))
      (then (i32.store (i32.add (global.get $cellMinX) (local.get $i)) (local.get $x))))
    (if (i32.gt_s (local.get $x) (i32.load (i32.add (global.get $cellMaxX) (local.get $i))))
      (then (i32.store (i32.add (global.get $cellMaxX) (local.get $i)) (local.get $x))))
    (if (i32.lt_s (local.get $y) (i32.load (i32.add (global.get $cellMinY) (local.get $i))))
      (then (i32.store (i32.add (global.get $cellMinY) (local.get $i)) (local.get $y))))
    (if (i32.gt_s (local.get $y) (i32.load (i32.add (global.get $cellMaxY) (local.get $i))))
      (then (i32.store (i32.add (global.get $cellMaxY) (local.get $i)) (local.get $y)))))

  ;; The rules on n rows listed (i32) at $rows: equal runs of 16 bytes skipped at once, each differing
  ;; pixel outside the ignored rectangles marked 1 (changed, counted in its cell) or 2 (anti-aliased).
  (func (export "rulesRows") (param $rows i32) (param $n i32)
    (local $k i32) (local $y i32) (local $x i32) (local $p i32) (local $rowA i32) (local $rowB i32) (local $rowBytes i32)
    (local $markRow i32) (local $marked i32) (local $delta f64) (local $c i32)
    (local $lumaRowsOf i32) (local $y0 i32) (local $y2 i32) (local $a0 i32) (local $a1 i32) (local $a2 i32) (local $b0 i32) (local $b1 i32) (local $b2 i32)
    (local.set $lumaRowsOf (i32.const -1))
    (local.set $c (global.get $channels))
    (local.set $rowBytes (i32.mul (global.get $width) (local.get $c)))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.ge_u (local.get $k) (local.get $n)))
        (local.set $y (i32.load (i32.add (local.get $rows) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $rowA (i32.add (global.get $aData) (i32.mul (local.get $y) (global.get $aStride))))
        (local.set $rowB (i32.add (global.get $bData) (i32.mul (local.get $y) (global.get $bStride))))
        (local.set $markRow (i32.add (global.get $marks) (i32.mul (local.get $y) (global.get $width))))
        (local.set $marked (i32.const 0))
        (local.set $x (i32.const 0))
        (block $pixels_done
          (loop $pixel
            (br_if $pixels_done (i32.ge_s (local.get $x) (global.get $width)))
            (local.set $p (i32.mul (local.get $x) (local.get $c)))
            (if (i32.le_s (i32.add (local.get $p) (i32.const 16)) (local.get $rowBytes))
              (then
                (if (i8x16.all_true (i8x16.eq (v128.load (i32.add (local.get $rowA) (local.get $p)))
                                              (v128.load (i32.add (local.get $rowB) (local.get $p)))))
                  (then
                    ;; 16 equal bytes: on from the pixel holding the 17th (one straddling it is checked whole).
                    (local.set $x (i32.div_u (i32.add (local.get $p) (i32.const 16)) (local.get $c)))
                    (br $pixel)))))
            (block $next
              (br_if $next (i32.eq (call $colourAt (i32.add (local.get $rowA) (local.get $p)))
                                   (call $colourAt (i32.add (local.get $rowB) (local.get $p)))))
              (br_if $next (i32.and (i32.ne (global.get $ignoreCount) (i32.const 0)) (call $ignored (local.get $x) (local.get $y))))
              (local.set $delta (call $colourDelta (i32.add (local.get $rowA) (local.get $p)) (i32.add (local.get $rowB) (local.get $p))))
              (br_if $next (i32.and (f64.le (local.get $delta) (global.get $maxDelta))
                                    (f64.ge (local.get $delta) (f64.neg (global.get $maxDelta)))))
              (if (i32.eqz (local.get $marked))
                (then
                  (memory.fill (local.get $markRow) (i32.const 0) (global.get $width))
                  (i32.store8 (i32.add (global.get $rowMarked) (local.get $y)) (i32.const 1))
                  (local.set $marked (i32.const 1))))
              (if (if (result i32) (global.get $includeAA)
                    (then (i32.const 0))
                    (else
                      (if (i32.ne (local.get $lumaRowsOf) (local.get $y))
                        (then
                          ;; The first anti-aliasing test of this row: its brightness rows, for every test in the row.
                          (local.set $lumaRowsOf (local.get $y))
                          (local.set $y0 (select (i32.sub (local.get $y) (i32.const 1)) (i32.const 0) (i32.gt_s (local.get $y) (i32.const 0))))
                          (local.set $y2 (select (i32.add (local.get $y) (i32.const 1)) (i32.sub (global.get $height) (i32.const 1))
                            (i32.lt_s (local.get $y) (i32.sub (global.get $height) (i32.const 1)))))
                          (local.set $a0 (call $lumaRow (global.get $aData) (global.get $aStride) (global.get $lumaA) (local.get $y0)))
                          (local.set $a1 (call $lumaRow (global.get $aData) (global.get $aStride) (global.get $lumaA) (local.get $y)))
                          (local.set $a2 (call $lumaRow (global.get $aData) (global.get $aStride) (global.get $lumaA) (local.get $y2)))
                          (local.set $b0 (call $lumaRow (global.get $bData) (global.get $bStride) (global.get $lumaB) (local.get $y0)))
                          (local.set $b1 (call $lumaRow (global.get $bData) (global.get $bStride) (global.get $lumaB) (local.get $y)))
                          (local.set $b2 (call $lumaRow (global.get $bData) (global.get $bStride) (global.get $lumaB) (local.get $y2)))))
                      (if (result i32) (call $isAntialiased (global.get $aData) (global.get $aStride) (local.get $a0) (local.get $a1) (local.get $a2)
                                                            (global.get $bData) (global.get $bStride) (local.get $x) (local.get $y))
                        (then (i32.const 1))
                        (else (call $isAntialiased (global.get $bData) (global.get $bStride) (local.get $b0) (local.get $b1) (local.get $b2)
                                                   (global.get $aData) (global.get $aStride) (local.get $x) (local.get $y))))))
                (then
                  (i32.store8 (i32.add (local.get $markRow) (local.get $x)) (i32.const 2))
                  (global.set $antialiased (i32.add (global.get $antialiased) (i32.const 1))))
                (else
                  (i32.store8 (i32.add (local.get $markRow) (local.get $x)) (i32.const 1))
                  (global.set $changed (i32.add (global.get $changed) (i32.const 1)))
                  (call $markCell (local.get $x) (local.get $y)))))
            (local.set $x (i32.add (local.get $x) (i32.const 1)))
            (br $pixel)))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $row))))
)
