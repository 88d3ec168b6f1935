import type { ReactNode } from 'react';
import { DropdownMenu as Menu } from 'radix-ui';
import { cn } from '@/lib/cn';

export interface MenuItem {
  label: ReactNode;
  icon?: ReactNode;
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
}

/** A keyboard-accessible drop-down menu opened by `trigger` (which must be a focusable element). */
export function DropdownMenu({ trigger, items, align = 'end', label }: { trigger: ReactNode; items: MenuItem[]; align?: 'start' | 'end'; label?: string }) {
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger asChild>{trigger}</Menu.Trigger>
      <Menu.Portal>
        <Menu.Content
          align={align}
          sideOffset={6}
          aria-label={label}
          className="z-50 min-w-44 rounded-md border border-border bg-bg p-1 shadow-pop"
        >
          {items.map((item, i) => (
            <Menu.Item
              key={i}
              disabled={item.disabled}
              onSelect={item.onSelect}
              className={cn(
                'flex cursor-pointer select-none items-center gap-2 rounded px-2.5 py-2 text-sm outline-none',
                'data-[highlighted]:bg-bg-muted data-[disabled]:pointer-events-none data-[disabled]:opacity-50',
                item.danger ? 'text-danger' : 'text-fg',
              )}
            >
              {item.icon}
              {item.label}
            </Menu.Item>
          ))}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
