import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { TIMINGS } from '@common/product';
import { isAbortError } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { captionImage, uploadImage } from '../api';
import { DEFAULT_ANALYSIS, extractionErrorMessage, fileProblem, type AnalysisType } from '../lib/extraction';

export type ExtractionStage = 'idle' | 'uploading' | 'analyzing';

interface ExtractionState {
  file: File | null;
  analysis: AnalysisType;
  stage: ExtractionStage;
  result: string | null;
  error: string | null;
}

const INITIAL: ExtractionState = { file: null, analysis: DEFAULT_ANALYSIS, stage: 'idle', result: null, error: null };

/**
 * The 'Extract Prompt from Image' panel's state (product §4): choose a file, choose Fast or Detailed, generate
 * (upload, then caption), use the prompt. Everything resets TIMINGS.panelResetMs after the panel closes, once
 * its closing animation is over.
 */
export function usePromptExtraction(open: boolean) {
  const { api } = useBackend();
  const [state, setState] = useState<ExtractionState>(INITIAL);
  const [previewUrl, setPreviewUrl] = useState<string | null>(null);
  // The chosen file's upload, kept so that trying the other analysis type does not upload it again.
  const uploaded = useRef<{ file: File; url: string } | null>(null);
  const inFlight = useRef<AbortController | null>(null);

  useEffect(() => {
    if (!state.file) {
      setPreviewUrl(null);
      return;
    }
    const url = URL.createObjectURL(state.file);
    setPreviewUrl(url);
    return () => URL.revokeObjectURL(url);
  }, [state.file]);

  const cancelRun = useCallback(() => {
    inFlight.current?.abort();
    inFlight.current = null;
  }, []);

  const reset = useCallback(() => {
    cancelRun();
    uploaded.current = null;
    setState(INITIAL);
  }, [cancelRun]);

  // Reopened before the delay is over (a quick close and open): the reset is still due, so it happens now.
  // A layout effect, so a reopened panel never paints its old content first.
  const resetDue = useRef(false);
  useLayoutEffect(() => {
    if (open) {
      if (resetDue.current) reset();
      resetDue.current = false;
      return;
    }
    resetDue.current = true;
    const timer = setTimeout(() => {
      resetDue.current = false;
      reset();
    }, TIMINGS.panelResetMs);
    return () => clearTimeout(timer);
  }, [open, reset]);

  useEffect(() => cancelRun, [cancelRun]);

  /** A new choice replaces the file and the last result; a file breaking the upload rules clears the choice. */
  const chooseFile = useCallback(
    (file: File) => {
      cancelRun();
      const problem = fileProblem(file);
      setState((s) => ({ ...s, file: problem ? null : file, stage: 'idle', result: null, error: problem }));
    },
    [cancelRun],
  );

  const clearFile = useCallback(() => {
    cancelRun();
    setState((s) => ({ ...s, file: null, stage: 'idle', result: null, error: null }));
  }, [cancelRun]);

  const setAnalysis = useCallback((analysis: AnalysisType) => setState((s) => ({ ...s, analysis })), []);

  const generate = useCallback(async () => {
    const { file, analysis, stage } = state;
    if (!file || stage !== 'idle') return;
    cancelRun();
    const run = new AbortController();
    inFlight.current = run;
    const update = (patch: Partial<ExtractionState>) => {
      if (inFlight.current === run) setState((s) => ({ ...s, ...patch }));
    };
    try {
      let url = uploaded.current?.file === file ? uploaded.current.url : null;
      if (!url) {
        update({ stage: 'uploading', result: null, error: null });
        url = await uploadImage(api, file, run.signal);
        uploaded.current = { file, url };
      }
      update({ stage: 'analyzing', result: null, error: null });
      const result = await captionImage(api, url, analysis, run.signal);
      update({ stage: 'idle', result });
    } catch (err) {
      if (isAbortError(err) || run.signal.aborted) return;
      console.error('prompt extraction failed', err);
      update({ stage: 'idle', error: extractionErrorMessage(err, analysis) });
    } finally {
      if (inFlight.current === run) inFlight.current = null;
    }
  }, [api, state, cancelRun]);

  return { ...state, previewUrl, busy: state.stage !== 'idle', chooseFile, clearFile, setAnalysis, generate, reset };
}

export type PromptExtraction = ReturnType<typeof usePromptExtraction>;
