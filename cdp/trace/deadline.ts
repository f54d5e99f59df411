/**
 * Bounds a CDP step. A page blocked by a JavaScript dialog (alert, confirm)
 * never answers Runtime.evaluate or Page.captureScreenshot, so every step
 * the recorder adds around an action must give up rather than hang it.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms (is a dialog open?)`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
    // The abandoned step may still settle later; nobody is waiting for it.
    work.catch(() => undefined);
  }
}
