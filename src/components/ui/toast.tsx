import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { cn } from '@/lib/cn';
import { TIMINGS } from '@common/product';

type ToastTone = 'default' | 'success' | 'error';
interface Toast {
  id: number;
  message: string;
  tone: ToastTone;
}
interface ToastApi {
  show(message: string, opts?: { tone?: ToastTone; durationMs?: number }): void;
}

const ToastContext = createContext<ToastApi | null>(null);

/** Short notices ('Prompt Copied') announced politely to screen readers. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const show = useCallback<ToastApi['show']>((message, opts = {}) => {
    const id = nextId.current++;
    setToasts((list) => [...list, { id, message, tone: opts.tone ?? 'default' }]);
    setTimeout(() => setToasts((list) => list.filter((t) => t.id !== id)), opts.durationMs ?? TIMINGS.copyFeedbackMs);
  }, []);
  const api = useMemo(() => ({ show }), [show]);
  return (
    <ToastContext.Provider value={api}>
      {children}
      <div aria-live="polite" className="pointer-events-none fixed inset-x-0 bottom-4 z-[60] flex flex-col items-center gap-2 px-4">
        {toasts.map((t) => (
          <div
            key={t.id}
            role="status"
            className={cn(
              'pointer-events-auto rounded-md px-4 py-2.5 text-sm font-medium shadow-pop',
              t.tone === 'error' ? 'bg-danger text-white' : t.tone === 'success' ? 'bg-success text-white' : 'bg-fg text-bg',
            )}
          >
            {t.message}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error('useToast needs a ToastProvider');
  return api;
}
