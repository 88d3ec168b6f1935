/**
 * `ask` made right away when `now`, its answer taken by the first call only, and only when it worked; every other
 * call asks anew. A page of the app opening asks for the session and the user record at once, side by side,
 * instead of after its code has loaded and one after the other (issue 54 item 2: the first screen's second).
 */
export function askedAtOnce<T>(ask: () => Promise<T>, now: boolean): () => Promise<T> {
  let early: Promise<T> | null = now ? ask() : null;
  early?.catch(() => undefined); // a signed-out visitor's refusal is nobody's error: the first call asks again
  return () => {
    const answered = early;
    early = null;
    return answered ? answered.catch(ask) : ask();
  };
}
