import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  acrossPhotos,
  nsfwRefusal,
  onePersonRefusal,
  photoBadge,
  PHOTO_PROBLEM_HINTS,
  photoSummary,
  problemsOf,
  type PhotoCheck,
  type PhotoComparison,
  type PhotoProblem,
} from '@common/photo-check';
import { LIMITS } from '@common/product';
import { ApiError, isAbortError, responseBody } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { checkTrainingPhoto } from '../api';
import { makeCheckCopy } from '../lib/check-copy';
import type { TrainingPhoto } from './use-training-form';

/** Where one photo's check stands. */
export type PhotoCheckState =
  | { status: 'waiting' }
  | { status: 'checking' }
  | { status: 'done'; check: PhotoCheck }
  /** The check could not run (network, rate limit, a file too large to send); the server re-checks at submit. */
  | { status: 'failed'; message: string };

/** What a thumbnail shows about its photo. */
export interface PhotoVerdict {
  state: PhotoCheckState['status'];
  /** 'Good', the first problem, 'Checking…', or 'Not checked'. */
  badge: string;
  tone: 'good' | 'warn' | 'bad' | 'busy' | 'none';
  /** A sentence about the badge (its title and accessible description). */
  hint: string | null;
  /** True when the photo has a problem and the page offers to remove it. */
  hasProblem: boolean;
  /** The problem its badge names, when it has one. */
  problem?: PhotoProblem;
}

/** A photo whose check found a problem, as the summary lists it. */
export interface PhotoWithProblem {
  id: string;
  /** Its 1-based place in the form. */
  number: number;
  badge: string;
  hint: string | null;
  problem: PhotoProblem;
}

/** Photos checked at once: the server's analyser takes one at a time, so more would only queue there. */
const CONCURRENCY = 2;

/**
 * Checks each photo as it is added (a smaller copy, see ../lib/check-copy.ts) against the server's free photo check,
 * a couple at a time; a removed photo's check is abandoned. Never blocks the form: it only reports.
 */
export function usePhotoChecks(photos: TrainingPhoto[]) {
  const { api } = useBackend();
  const [states, setStates] = useState<Record<string, PhotoCheckState>>({});
  const running = useRef(new Map<string, AbortController>());
  const [wake, setWake] = useState(0);

  const setState = useCallback((id: string, state: PhotoCheckState) => setStates((s) => ({ ...s, [id]: state })), []);

  // Forget photos that left the form, and stop their checks.
  useEffect(() => {
    const ids = new Set(photos.map((p) => p.id));
    for (const [id, controller] of running.current) {
      if (!ids.has(id)) {
        controller.abort();
        running.current.delete(id);
      }
    }
    setStates((s) => {
      const kept = Object.fromEntries(Object.entries(s).filter(([id]) => ids.has(id)));
      return Object.keys(kept).length === Object.keys(s).length ? s : kept;
    });
  }, [photos]);

  // Start the next checks, in the order the photos were added.
  useEffect(() => {
    const free = CONCURRENCY - running.current.size;
    if (free <= 0) return;
    const next = photos.filter((p) => !states[p.id] && !running.current.has(p.id)).slice(0, free);
    for (const photo of next) {
      const controller = new AbortController();
      running.current.set(photo.id, controller);
      setState(photo.id, { status: 'checking' });
      void (async () => {
        try {
          const copy = await makeCheckCopy(photo.file);
          if (copy.file.size > LIMITS.uploadMaxBytes) {
            setState(photo.id, {
              status: 'failed',
              message: 'This photo is too large to check here; it will be checked when you start the training.',
            });
            return;
          }
          const check = await checkTrainingPhoto(api, copy.file, copy.original, controller.signal);
          if (!controller.signal.aborted) setState(photo.id, { status: 'done', check });
        } catch (err) {
          if (isAbortError(err) || controller.signal.aborted) return;
          console.warn('photo check failed', err);
          const message =
            err instanceof ApiError ? responseBody(err) : 'The photo could not be checked. Check your connection and try again.';
          setState(photo.id, { status: 'failed', message });
        } finally {
          if (running.current.get(photo.id) === controller) running.current.delete(photo.id);
          // Wake the scheduler for the next photo.
          setWake((n) => n + 1);
        }
      })();
    }
  }, [api, photos, states, setState, wake]);

  useEffect(() => () => running.current.forEach((c) => c.abort()), []);

  /** Checks a photo again (after a failed check): without a state it is picked up as a new one. */
  const retry = useCallback((id: string) => {
    setStates((s) => Object.fromEntries(Object.entries(s).filter(([key]) => key !== id)));
  }, []);

  return useMemo(() => {
    const list = photos.map((p) => states[p.id] ?? ({ status: 'waiting' } as const));
    const compared = acrossPhotos(list.map((s) => (s.status === 'done' ? s.check : null)));
    const verdicts = new Map<string, PhotoVerdict>();
    list.forEach((state, i) => verdicts.set(photos[i]!.id, verdictOf(state, compared[i]!)));
    const done = list.flatMap((s) => (s.status === 'done' ? [s.check] : []));
    const pending = list.filter((s) => s.status === 'waiting' || s.status === 'checking').length;
    const withProblems = photos.flatMap((p, i): PhotoWithProblem[] => {
      const v = verdicts.get(p.id)!;
      return v.hasProblem && v.problem ? [{ id: p.id, number: i + 1, badge: v.badge, hint: v.hint, problem: v.problem }] : [];
    });
    const good = [...verdicts.values()].filter((v) => v.tone === 'good').length;
    return {
      verdicts,
      summary: photos.length
        ? photoSummary({
            total: photos.length,
            good,
            problems: withProblems.length,
            pending,
            differentPeople: compared.some((c) => c.differentPerson),
          })
        : null,
      /** Photos whose check found a problem, in the form's order (one tap removes them all). */
      withProblems,
      /**
       * Why the photos cannot be submitted as they are, from the verdicts so far (the server decides again):
       * an NSFW photo at once; too few photos of one person once every photo has been checked.
       */
      refusal: refusalOf(list, done, pending),
      retry,
    };
  }, [photos, states, retry]);
}

function refusalOf(list: PhotoCheckState[], done: PhotoCheck[], pending: number): string | null {
  const all = list.map((s) => (s.status === 'done' ? s.check : { problems: [], faces: 1 }));
  const nsfw = nsfwRefusal(all);
  if (nsfw) return nsfw;
  // Too few one-person photos is only known once each photo has a verdict; unchecked ones count for the person.
  return pending === 0 && done.length ? onePersonRefusal(all) : null;
}

function verdictOf(state: PhotoCheckState, compared: PhotoComparison): PhotoVerdict {
  switch (state.status) {
    case 'waiting':
      return { state: state.status, badge: 'Waiting…', tone: 'busy', hint: null, hasProblem: false };
    case 'checking':
      return { state: state.status, badge: 'Checking…', tone: 'busy', hint: null, hasProblem: false };
    case 'failed':
      return { state: state.status, badge: 'Not checked', tone: 'none', hint: state.message, hasProblem: false };
    case 'done': {
      const first = problemsOf(state.check, compared)[0];
      if (!first) return { state: state.status, badge: 'Good', tone: 'good', hint: null, hasProblem: false };
      const badge = photoBadge(state.check, compared);
      const hint = first === 'unreadable' && state.check.detail ? state.check.detail : PHOTO_PROBLEM_HINTS[first];
      return { state: state.status, badge, tone: first === 'not-allowed' ? 'bad' : 'warn', hint, hasProblem: true, problem: first };
    }
  }
}

export type PhotoChecks = ReturnType<typeof usePhotoChecks>;
