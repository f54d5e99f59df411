/**
 * Web Animations and SVG (SMIL) animations on the virtual clock: each one is
 * held paused and set to the virtual instant after every step, and the same
 * pass counts the ones still moving, so the settle knows whether the page is
 * at rest. A finite animation keeps the page busy until it ends (a chart that
 * grows in with element.animate is captured grown); an endless one keeps it
 * busy until the settle's bound. CSS animations and transitions never get here:
 * the freeze sheet stops them. Each shadow root is asked too: a document's
 * getAnimations() and querySelectorAll() stop at its shadow roots.
 */
import type { Scheduler } from './scheduler';
import type { ShadowRoots } from './shadowRoots';

export interface AnimationCounts {
  /** Animations that end later than now. */
  finite: number;
  /** Animations that never end (infinite iterations, repeatCount="indefinite"). */
  endless: number;
}

export interface AnimationSync {
  /** Sets every animation to the virtual instant; returns how many are still moving. */
  sync(): AnimationCounts;
}

const SMIL_ELEMENTS = 'animate, animateTransform, animateMotion, set';

export function installAnimationSync(
  win: Window & typeof globalThis,
  scheduler: Scheduler,
  define: (target: object, name: string, value: unknown) => void,
  shadows: ShadowRoots,
): AnimationSync {
  const animationStarts = new WeakMap<Animation, number>();
  const elementPrototype = win.Element?.prototype;
  if (elementPrototype && typeof elementPrototype.animate === 'function') {
    const animate = elementPrototype.animate;
    define(elementPrototype, 'animate', function (this: Element, ...args: Parameters<Element['animate']>) {
      const animation = animate.apply(this, args);
      animationStarts.set(animation, scheduler.now);
      animation.pause();
      animation.currentTime = 0;
      return animation;
    });
  }

  const syncWebAnimations = (scopes: Array<Document | ShadowRoot>, counts: AnimationCounts) => {
    const all = new Set<Animation>();
    for (const scope of scopes) if (typeof scope.getAnimations === 'function') for (const animation of scope.getAnimations()) all.add(animation);
    for (const animation of all) {
      let started = animationStarts.get(animation);
      if (started === undefined) {
        // Not started through animate(): it starts now, on the virtual clock (its real progress so far is a race).
        if (animation.playState !== 'running') continue;
        started = scheduler.now;
        animationStarts.set(animation, started);
        animation.pause();
      }
      const rate = animation.playbackRate;
      const current = (scheduler.now - started) * rate;
      animation.currentTime = current;
      const end = Number(animation.effect?.getComputedTiming().endTime ?? 0);
      if (rate > 0 && end === Infinity) counts.endless++;
      else if ((rate > 0 && current < end) || (rate < 0 && current > 0)) counts.finite++;
    }
  };

  const syncSmil = (scopes: Array<Document | ShadowRoot>, counts: AnimationCounts) => {
    const roots = scopes.flatMap((scope) => Array.from(scope.querySelectorAll('svg'))).filter((svg) => !svg.ownerSVGElement);
    if (!roots.length) return;
    const seconds = scheduler.now / 1000;
    for (const svg of roots) {
      svg.pauseAnimations();
      svg.setCurrentTime(seconds);
    }
    for (const element of scopes.flatMap((scope) => Array.from(scope.querySelectorAll(SMIL_ELEMENTS))) as SVGAnimationElement[]) {
      if (typeof element.getStartTime !== 'function') continue;
      let begin: number;
      try {
        begin = element.getStartTime();
      } catch {
        continue; // No current interval (begin="click", or already over): it does not move now.
      }
      const repeatCount = element.getAttribute('repeatCount');
      const repeatDur = element.getAttribute('repeatDur');
      if (repeatCount === 'indefinite' || repeatDur === 'indefinite') {
        counts.endless++;
        continue;
      }
      let simple: number;
      try {
        simple = element.getSimpleDuration();
      } catch {
        continue; // An indefinite simple duration: a `set` that holds, nothing moves.
      }
      const end = begin + simple * (Number(repeatCount) > 0 ? Number(repeatCount) : 1);
      if (seconds < end) counts.finite++;
    }
  };

  return {
    sync() {
      const counts: AnimationCounts = { finite: 0, endless: 0 };
      const doc = win.document;
      if (!doc) return counts;
      const scopes = [doc, ...shadows.connected()];
      syncWebAnimations(scopes, counts);
      syncSmil(scopes, counts);
      return counts;
    },
  };
}
