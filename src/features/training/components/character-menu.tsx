import { useState, type FormEvent } from 'react';
import { MoreVertical, Pencil, Trash2 } from 'lucide-react';
import { deleteCharacterQuestion, TRAINING_MESSAGES, type TrainingView } from '@common/training';
import { TEXT_LIMITS } from '@common/text';
import { errorMessage } from '@/backend/api-error';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { DropdownMenu } from '@/components/ui/dropdown-menu';
import { Input } from '@/components/ui/input';

export interface CharacterMenuProps {
  training: TrainingView;
  onRename: (training: TrainingView, name: string) => Promise<void>;
  onDelete: (training: TrainingView) => Promise<void>;
}

/** The '⋮' menu of a character in Previous Trainings: 'Rename' and 'Delete', each confirmed in a dialog. */
export function CharacterMenu({ training, onRename, onDelete }: CharacterMenuProps) {
  const [open, setOpen] = useState<'rename' | 'delete' | null>(null);
  const [name, setName] = useState(training.character_name);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const show = (which: 'rename' | 'delete') => {
    setName(training.character_name);
    setError(null);
    setOpen(which);
  };
  const close = (next: boolean) => {
    if (!next && !busy) setOpen(null);
  };

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
      setOpen(null);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  }

  function rename(e: FormEvent) {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return setError(TRAINING_MESSAGES.nameRequired);
    if (trimmed === training.character_name) return setOpen(null);
    void run(() => onRename(training, trimmed));
  }

  return (
    <>
      <DropdownMenu
        label={`Actions for ${training.character_name}`}
        trigger={
          <Button variant="ghost" size="icon" className="-mr-2 -mt-1 size-8 shrink-0" aria-label={`Actions for ${training.character_name}`}>
            <MoreVertical className="size-4" aria-hidden />
          </Button>
        }
        items={[
          { label: 'Rename', icon: <Pencil className="size-4" aria-hidden />, onSelect: () => show('rename') },
          { label: 'Delete', icon: <Trash2 className="size-4" aria-hidden />, onSelect: () => show('delete'), danger: true },
        ]}
      />

      <Dialog open={open === 'rename'} onOpenChange={close} title="Rename character">
        <form onSubmit={rename} className="flex flex-col gap-4" noValidate>
          <Input
            label="Character name"
            value={name}
            maxLength={TEXT_LIMITS.characterName}
            onChange={(e) => setName(e.target.value)}
            error={error}
            autoFocus
          />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => close(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" busy={busy}>
              Save
            </Button>
          </div>
        </form>
      </Dialog>

      <Dialog open={open === 'delete'} onOpenChange={close} title="Delete character" hideTitle>
        <p className="pr-6 text-sm leading-relaxed" data-testid="delete-character-question">
          {deleteCharacterQuestion(training.character_name)}
        </p>
        {error && (
          <p role="alert" className="mt-3 text-sm text-danger">
            {error}
          </p>
        )}
        <div className="mt-5 flex justify-end gap-2">
          <Button variant="outline" onClick={() => close(false)} disabled={busy}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} onClick={() => void run(() => onDelete(training))}>
            <Trash2 className="size-4" aria-hidden />
            Delete
          </Button>
        </div>
      </Dialog>
    </>
  );
}
