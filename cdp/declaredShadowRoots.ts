/**
 * Closed shadow roots declared in a document's HTML (`<template
 * shadowrootmode="closed">`): the parser makes them without attachShadow, so
 * the virtual clock's registry (cdp/injected/clock/shadowRoots.ts) never
 * hears of them and no page script can reach them. The protocol can, by
 * serializing the whole DOM with `pierce` (about 30 µs an element: 0.6 s for
 * 20,000), so that walk runs only for a document whose HTML declares such a
 * root, and once per document: each frame's HTML is read from the browser's
 * resource cache first (one call a frame), and a document already looked at
 * is known by its loader id.
 *
 * Each root found is handed to the frame's clock (`shadowRoot(root)`, in the
 * page's main world, where the clock lives), which then freezes, watches and
 * syncs it as any root a script made.
 */
import type { CdpSession, Protocol } from './types';

/** The clock's method that takes a root the page could not show it. */
const HAND_OVER = 'function () { const clock = globalThis.__designPlaybookClock; if (clock && clock.shadowRoot) clock.shadowRoot(this); }';
/** A closed root in HTML: the attribute, as the parser reads it (case-insensitive, any quoting). */
const DECLARES_CLOSED_ROOT = /\sshadowrootmode\s*=\s*["']?closed\b/i;

/**
 * Finds the closed roots declared in the HTML of the page's frames not looked
 * at before (`seen`: loader ids), and hands them to each frame's clock.
 * Returns how many were handed over. Never throws: a root it cannot reach
 * stays as the page made it (docs/determinism.md).
 */
export async function revealDeclaredClosedRoots(session: CdpSession, seen: Set<string>): Promise<number> {
  try {
    const { frameTree } = await session.send('Page.getFrameTree');
    const fresh: Protocol.Page.Frame[] = [];
    const visit = (node: Protocol.Page.FrameTree) => {
      if (!seen.has(node.frame.loaderId)) fresh.push(node.frame);
      for (const child of node.childFrames ?? []) visit(child);
    };
    visit(frameTree);
    if (!fresh.length) return 0;
    for (const frame of fresh) seen.add(frame.loaderId);
    const declares = await Promise.all(fresh.map((frame) => declaresClosedRoot(session, frame)));
    if (!declares.some(Boolean)) return 0;
    const { root } = await session.send('DOM.getDocument', { depth: -1, pierce: true });
    const closed: number[] = [];
    const walk = (node: Protocol.DOM.Node) => {
      for (const shadow of node.shadowRoots ?? []) {
        if (shadow.shadowRootType === 'closed') closed.push(shadow.backendNodeId);
        walk(shadow);
      }
      for (const child of node.children ?? []) walk(child);
      if (node.contentDocument) walk(node.contentDocument);
      if (node.templateContent) walk(node.templateContent);
    };
    walk(root);
    let handed = 0;
    await Promise.all(
      closed.map(async (backendNodeId) => {
        const { object } = await session.send('DOM.resolveNode', { backendNodeId });
        if (!object.objectId) return;
        await session.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: HAND_OVER });
        handed++;
        session.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => undefined);
      }),
    );
    // The walk turned the DOM agent's updates on for this session; nothing here reads them.
    await session.send('DOM.disable').catch(() => undefined);
    return handed;
  } catch {
    return 0;
  }
}

async function declaresClosedRoot(session: CdpSession, frame: Protocol.Page.Frame): Promise<boolean> {
  try {
    const { content, base64Encoded } = await session.send('Page.getResourceContent', { frameId: frame.id, url: frame.url });
    return DECLARES_CLOSED_ROOT.test(base64Encoded ? Buffer.from(content, 'base64').toString('utf8') : content);
  } catch {
    // No cached HTML (about:blank, a srcdoc, a document written by script): nothing was declared in it that we can know of.
    return false;
  }
}
