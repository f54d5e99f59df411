;; The pixel comparison's hot loops in WebAssembly SIMD (16 bytes at a time),
;; assembled by scripts/build-workers.js into generated/pixelKernels.ts and run
;; by kernels.ts over its own memory (which holds image A and the diff image's
;; scanlines). Each function gives exactly the bytes of its JavaScript twin:
;;   unfilterUp  — raster.ts's Up-filter loop (bytewise add of the row above)
;;   levelsRgb, levelsRgba — diffImage.ts levelsInto (a pixel's grey level)
;; test/compare/pixelKernels.test.ts holds them to that on random and real data.
(module
  (memory (export "memory") 1)
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
)
