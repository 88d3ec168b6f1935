/** Sends the browser to a payment page (checkout or customer portal). A module of its own so tests can observe it. */
export function redirectTo(url: string): void {
  window.location.assign(url);
}
