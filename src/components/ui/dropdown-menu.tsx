import type { ReactNode } from 'react';
import { DropdownMenu as Menu } from 'radix-ui';
import { cn } from '@/lib/cn';

export interface MenuItem {
  label: ReactNode;
  icon?: ReactNode;
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
  /** The page the person is on: marked, and announced as the current page. */
  current?: boolean;
}

/** A keyboard-accessible drop-down menu opened by `trigger` (which must be a focusable element). */
export function DropdownMenu({
  trigger,
  items,
  align = 'end',
  side = 'bottom',
  label,
  header,
  onOpenChange,
}: {
  trigger: ReactNode;
  items: MenuItem[];
  align?: 'start' | 'end';
  side?: 'top' | 'right' | 'bottom' | 'left';
  label?: string;
  /** Shown above the items, not selectable (who the menu is about). */
  header?: ReactNode;
  onOpenChange?: (open: boolean) => void;
}) {
  return (
    <Menu.Root modal={false} onOpenChange={onOpenChange}>
      <Menu.Trigger asChild>{trigger}</Menu.Trigger>
      <Menu.Portal>
        <Menu.Content
          align={align}
          side={side}
          sideOffset={6}
          collisionPadding={8}
          aria-label={label}
          className="z-50 max-w-[calc(100vw-1rem)] min-w-44 rounded-md border border-border bg-bg p-1 shadow-pop"
        >
          {header && <div className="border-b border-border px-2.5 pt-1.5 pb-2 mb-1">{header}</div>}
          {items.map((item, i) => (
            <Menu.Item
              key={i}
              disabled={item.disabled}
              onSelect={item.onSelect}
              aria-current={item.current ? 'page' : undefined}
              className={cn(
                'flex cursor-pointer select-none items-center gap-2 rounded px-2.5 py-2 text-sm outline-none',
                'data-[highlighted]:bg-bg-muted data-[disabled]:pointer-events-none data-[disabled]:opacity-50',
                item.danger ? 'text-danger' : item.current ? 'bg-brand-soft font-semibold text-brand' : 'text-fg',
              )}
            >
              {item.icon}
              <span className="min-w-0 truncate">{item.label}</span>
            </Menu.Item>
          ))}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
