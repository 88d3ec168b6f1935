import { useCallback, useEffect, useRef, useState } from 'react';

export interface GenerationQueueState {
  /** A request is running now. */
  loading: boolean;
  /** Requests waiting behind the running one ('+N more in queue'). */
  waiting: number;
}

export interface GenerationQueueOptions<Req, Res> {
  run: (request: Req) => Promise<Res>;
  onSuccess: (response: Res, request: Req) => void;
  onError: (error: unknown, request: Req) => void;
}

/**
 * Requests made while one is running are queued and drained one by one (product §4). Each request is a snapshot
 * taken when the person clicked Generate, so editing the form afterwards does not change queued work.
 * Leaving the page drops what has not started; the running request's answer is then ignored.
 */
export function useGenerationQueue<Req, Res>(options: GenerationQueueOptions<Req, Res>) {
  const latest = useRef(options);
  latest.current = options;
  const queue = useRef<Req[]>([]);
  const running = useRef(false);
  const mounted = useRef(true);
  const [state, setState] = useState<GenerationQueueState>({ loading: false, waiting: 0 });

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
      queue.current = [];
    };
  }, []);

  const drain = useCallback(async () => {
    running.current = true;
    while (mounted.current && queue.current.length > 0) {
      const request = queue.current.shift() as Req;
      setState({ loading: true, waiting: queue.current.length });
      try {
        const response = await latest.current.run(request);
        if (mounted.current) latest.current.onSuccess(response, request);
      } catch (error) {
        console.error('Image generation failed', error);
        if (mounted.current) latest.current.onError(error, request);
      }
    }
    running.current = false;
    if (mounted.current) setState({ loading: false, waiting: 0 });
  }, []);

  const enqueue = useCallback(
    (request: Req) => {
      queue.current.push(request);
      if (running.current) setState((s) => ({ ...s, waiting: queue.current.length }));
      else void drain();
    },
    [drain],
  );

  return { ...state, enqueue };
}
