import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { cn } from '@/lib/cn';
import { TIMINGS } from '@common/product';

type ToastTone = 'default' | 'success' | 'error';
/** A button in the toast ('Undo'); pressing it closes the toast. */
export interface ToastAction {
  label: string;
  onClick(): void;
}
interface Toast {
  id: number;
  message: string;
  tone: ToastTone;
  action?: ToastAction;
}
interface ToastApi {
  show(message: string, opts?: { tone?: ToastTone; durationMs?: number; action?: ToastAction }): void;
}

/** The key that moves focus to the newest toast's button, as in Radix's toasts (named in the region's label). */
const FOCUS_KEY = 'F8';

const ToastContext = createContext<ToastApi | null>(null);

/**
 * Short notices ('Prompt Copied') announced politely to screen readers. A toast may carry one action
 * ('Image deleted' · 'Undo'): a real button, reached with Tab or at once with F8, big enough to tap.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const idPrefix = useId();
  const region = useRef<HTMLDivElement>(null);
  /** Where focus was before F8 took it to a toast, to go back there when that toast leaves. */
  const focusBefore = useRef<HTMLElement | null>(null);
  /** Each toast's timer and the time it has left; all are held while the pointer or focus is on a toast. */
  const timers = useRef(new Map<number, { timer?: ReturnType<typeof setTimeout>; remainingMs: number; startedAt: number }>());
  const held = useRef(false);

  const dismiss = useCallback((id: number) => {
    // A toast that leaves while it holds focus hands it back, instead of dropping it on the page's body.
    const focused = document.activeElement;
    if (focused instanceof HTMLElement && focused.closest(`[data-toast-id="${id}"]`)) {
      const back = focusBefore.current;
      focusBefore.current = null;
      if (back?.isConnected) back.focus();
      else focused.blur();
    }
    clearTimeout(timers.current.get(id)?.timer);
    timers.current.delete(id);
    setToasts((list) => list.filter((t) => t.id !== id));
  }, []);

  const run = useCallback(
    (id: number) => {
      const entry = timers.current.get(id);
      if (!entry) return;
      entry.startedAt = Date.now();
      entry.timer = setTimeout(() => dismiss(id), entry.remainingMs);
    },
    [dismiss],
  );

  const show = useCallback<ToastApi['show']>(
    (message, opts = {}) => {
      const id = nextId.current++;
      setToasts((list) => [...list, { id, message, tone: opts.tone ?? 'default', action: opts.action }]);
      timers.current.set(id, { remainingMs: opts.durationMs ?? TIMINGS.copyFeedbackMs, startedAt: 0 });
      if (!held.current) run(id);
    },
    [run],
  );

  // A toast does not leave while someone points at it or has focus in it (time to read it or reach Undo).
  const hold = useCallback(() => {
    if (held.current) return;
    held.current = true;
    for (const entry of timers.current.values()) {
      clearTimeout(entry.timer);
      entry.remainingMs -= Date.now() - entry.startedAt;
    }
  }, []);
  const release = useCallback(() => {
    if (!held.current) return;
    held.current = false;
    for (const id of timers.current.keys()) run(id);
  }, [run]);

  // No timer outlives the provider.
  useEffect(() => {
    const all = timers.current;
    return () => {
      for (const entry of all.values()) clearTimeout(entry.timer);
      all.clear();
    };
  }, []);

  const hasAction = toasts.some((t) => t.action);
  useEffect(() => {
    if (!hasAction) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== FOCUS_KEY) return;
      const buttons = region.current?.querySelectorAll<HTMLButtonElement>('button[data-toast-action]');
      const newest = buttons?.[buttons.length - 1];
      if (!newest) return;
      event.preventDefault();
      if (!region.current?.contains(document.activeElement)) focusBefore.current = document.activeElement as HTMLElement | null;
      newest.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [hasAction]);

  const api = useMemo(() => ({ show }), [show]);
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div
        ref={region}
        role="region"
        aria-label={`Notifications (${FOCUS_KEY})`}
        className="pointer-events-none fixed inset-x-0 bottom-4 z-[60] px-4"
        onPointerEnter={hold}
        onPointerLeave={release}
        onFocus={hold}
        onBlur={(event) => {
          if (!region.current?.contains(event.relatedTarget as Node | null)) release();
        }}
      >
        <div aria-live="polite" className="flex flex-col items-center gap-2">
          {toasts.map((t) => (
            <div
              key={t.id}
              role="status"
              data-toast-id={t.id}
              className={cn(
                'pointer-events-auto flex max-w-full items-center gap-3 rounded-md px-4 py-2.5 text-sm font-medium shadow-pop',
                t.action && 'py-1 pr-1.5',
                t.tone === 'error' ? 'bg-danger text-white' : t.tone === 'success' ? 'bg-success text-white' : 'bg-fg text-bg',
              )}
            >
              <span id={`${idPrefix}-${t.id}`}>{t.message}</span>
              {t.action && (
                <button
                  type="button"
                  data-toast-action
                  aria-describedby={`${idPrefix}-${t.id}`}
                  onClick={() => {
                    const action = t.action!;
                    dismiss(t.id);
                    action.onClick();
                  }}
                  // 44 px tall on phones (a finger), 36 px with a pointer; a light outline on the dark toast.
                  className="inline-flex min-h-11 min-w-11 items-center justify-center rounded px-3 font-semibold text-brand-soft underline-offset-4 hover:bg-white/10 hover:underline focus-visible:outline-white md:min-h-9"
                >
                  {t.action.label}
                </button>
              )}
            </div>
          ))}
        </div>
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast needs a ToastProvider');
  return api;
}
