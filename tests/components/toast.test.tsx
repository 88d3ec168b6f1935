// @vitest-environment jsdom
/**
 * The toast's action button (the 'Undo' of 'Image deleted'): a real, labelled button reached with Tab or F8,
 * that runs once and closes its toast, which otherwise leaves after its time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { deletedMessage, UNDO_TOAST_MS } from '@common/library';
import { ToastProvider, useToast } from '@/components/ui/toast';

function Trigger({ onUndo, durationMs = UNDO_TOAST_MS }: { onUndo: () => void; durationMs?: number }) {
  const toast = useToast();
  return (
    <button type="button" onClick={() => toast.show(deletedMessage(1), { durationMs, action: { label: 'Undo', onClick: onUndo } })}>
      Delete
    </button>
  );
}

function renderToasts(props: { onUndo: () => void; durationMs?: number }) {
  render(
    <ToastProvider>
      <Trigger {...props} />
    </ToastProvider>,
  );
  return screen.getByRole('button', { name: 'Delete' });
}

describe('a toast with an action', () => {
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it("shows 'Image deleted' with an Undo button described by it; Undo runs once and closes the toast", async () => {
    const onUndo = vi.fn();
    const user = userEvent.setup();
    await user.click(renderToasts({ onUndo }));
    const toast = screen.getByRole('status');
    expect(toast).toHaveTextContent('Image deleted');
    const undo = screen.getByRole('button', { name: 'Undo', description: 'Image deleted' });
    expect(screen.getByRole('region', { name: 'Notifications (F8)' })).toContainElement(undo);
    await user.click(undo);
    expect(onUndo).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('status')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
  });

  it('is reached with the keyboard: F8 moves focus to Undo, Enter undoes, and focus goes back where it was', async () => {
    const onUndo = vi.fn();
    const user = userEvent.setup();
    const trigger = renderToasts({ onUndo });
    trigger.focus();
    await user.keyboard('{Enter}');
    expect(screen.getByRole('status')).toHaveTextContent('Image deleted');
    await user.keyboard('{F8}');
    expect(screen.getByRole('button', { name: 'Undo' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(onUndo).toHaveBeenCalledTimes(1);
    expect(trigger).toHaveFocus();
    // With no toast to act on, F8 does nothing.
    await user.keyboard('{F8}');
    expect(trigger).toHaveFocus();
  });

  it('stays about 6 seconds (UNDO_TOAST_MS), then leaves without undoing', () => {
    vi.useFakeTimers();
    const onUndo = vi.fn();
    fireEvent.click(renderToasts({ onUndo }));
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS - 100));
    expect(screen.getByRole('button', { name: 'Undo' })).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(100));
    expect(screen.queryByRole('status')).toBeNull();
    expect(onUndo).not.toHaveBeenCalled();
    expect(UNDO_TOAST_MS).toBe(6000);
  });

  it('does not leave while focus or the pointer is on it, then keeps the time it had left', () => {
    vi.useFakeTimers();
    fireEvent.click(renderToasts({ onUndo: vi.fn() }));
    const region = screen.getByRole('region', { name: 'Notifications (F8)' });
    act(() => vi.advanceTimersByTime(2000));
    fireEvent.keyDown(window, { key: 'F8' });
    expect(screen.getByRole('button', { name: 'Undo' })).toHaveFocus();
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByRole('status')).toBeInTheDocument();
    act(() => screen.getByRole('button', { name: 'Undo' }).blur());
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS - 2000 - 100));
    expect(screen.getByRole('status')).toBeInTheDocument();
    fireEvent.pointerEnter(region);
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByRole('status')).toBeInTheDocument();
    fireEvent.pointerLeave(region);
    act(() => vi.advanceTimersByTime(100));
    expect(screen.queryByRole('status')).toBeNull();
  });
});
