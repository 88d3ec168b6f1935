import type { SendAgainState } from '../hooks/use-send-again';

/** The inline 'Send again' link-button inside a sentence. */
export function SendAgainButton({ state, onClick, label }: { state: SendAgainState; onClick: () => void; label: string }) {
  return (
    <button
      type="button"
      className="inline-flex min-h-6 items-center font-semibold text-fg underline underline-offset-2 hover:no-underline disabled:opacity-60"
      disabled={state.busy}
      onClick={onClick}
    >
      {state.busy ? 'Sending…' : label}
    </button>
  );
}
