import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { PACK_ASPECTS, PACK_PROMPTS, type PackAspect } from '@common/photo-shoots';
import type { TeamView } from '@common/teams';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Button } from '@/components/ui/button';
import { Input, Textarea } from '@/components/ui/input';
import { useToast } from '@/components/ui/toast';
import { saveLook, teamKey } from '../api';

const ASPECTS = Object.keys(PACK_ASPECTS) as PackAspect[];
const selectClasses = 'h-10 w-full rounded-md border border-border-strong bg-bg px-3 text-sm text-fg';

/** The team look (owner): a catalogue pack or a team pack, the aspect ratio and the due date. */
export function LookEditor({ team }: { team: TeamView }) {
  const { api, data } = useBackend();
  const qc = useQueryClient();
  const toast = useToast();
  const packs = useQuery({ queryKey: ['photo-packs'], queryFn: ({ signal }) => data.photoPacks(signal), staleTime: 60_000 });
  const [mode, setMode] = useState<'catalogue' | 'team'>(team.team_pack ? 'team' : 'catalogue');
  const [packId, setPackId] = useState(team.pack_id ?? '');
  const [own, setOwn] = useState({
    name: team.team_pack?.name ?? `${team.name} headshots`,
    backdrop: team.team_pack?.backdrop ?? '',
    clothing: team.team_pack?.clothing ?? '',
    framing: team.team_pack?.framing ?? '',
    prompts: team.team_pack?.prompts.join('\n') ?? '',
  });
  const [aspect, setAspect] = useState<PackAspect>((team.aspect_ratio as PackAspect) ?? '4:5');
  const [due, setDue] = useState(team.due_date ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      await saveLook(api, team.id, {
        pack_id: mode === 'catalogue' ? packId : null,
        team_pack:
          mode === 'team'
            ? {
                ...own,
                prompts: own.prompts
                  .split('\n')
                  .map((p) => p.trim())
                  .filter(Boolean),
              }
            : null,
        aspect_ratio: aspect,
        due_date: due || null,
      });
      await qc.invalidateQueries({ queryKey: teamKey(team.id) });
      toast.show('The team look is saved.');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="flex flex-col gap-4" aria-label="Team look">
      <h2 className="text-lg font-semibold text-fg">Team look</h2>
      <div className="flex gap-4 text-sm" role="radiogroup" aria-label="Pack">
        <label className="flex items-center gap-2">
          <input type="radio" checked={mode === 'catalogue'} onChange={() => setMode('catalogue')} /> A pack from the catalogue
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" checked={mode === 'team'} onChange={() => setMode('team')} /> A team pack
        </label>
      </div>
      {mode === 'catalogue' ? (
        <label className="flex flex-col gap-1.5 text-sm font-medium text-fg">
          Pack
          <select className={selectClasses} value={packId} onChange={(e) => setPackId(e.target.value)}>
            <option value="">Choose a pack…</option>
            {(packs.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.photo_count} photos)
              </option>
            ))}
          </select>
        </label>
      ) : (
        <div className="grid gap-3 sm:grid-cols-2">
          <Input label="Name" value={own.name} maxLength={80} onChange={(e) => setOwn({ ...own, name: e.target.value })} />
          <Input
            label="Backdrop"
            placeholder="a plain light grey studio backdrop"
            value={own.backdrop}
            maxLength={200}
            onChange={(e) => setOwn({ ...own, backdrop: e.target.value })}
          />
          <Input
            label="Clothing"
            placeholder="a navy blazer over a white shirt"
            value={own.clothing}
            maxLength={200}
            onChange={(e) => setOwn({ ...own, clothing: e.target.value })}
          />
          <Input
            label="Framing"
            placeholder="head and shoulders, eye level"
            value={own.framing}
            maxLength={200}
            onChange={(e) => setOwn({ ...own, framing: e.target.value })}
          />
          <div className="sm:col-span-2">
            <Textarea
              label={`Prompts, one a line (${PACK_PROMPTS.min} to ${PACK_PROMPTS.max}; name the person with {subject})`}
              rows={6}
              value={own.prompts}
              onChange={(e) => setOwn({ ...own, prompts: e.target.value })}
              placeholder="professional headshot of {subject}, soft smile"
            />
          </div>
        </div>
      )}
      <div className="grid gap-3 sm:grid-cols-2">
        <label className="flex flex-col gap-1.5 text-sm font-medium text-fg">
          Aspect ratio
          <select className={selectClasses} value={aspect} onChange={(e) => setAspect(e.target.value as PackAspect)}>
            {ASPECTS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <Input label="Due date" type="date" value={due} onChange={(e) => setDue(e.target.value)} />
      </div>
      {error && (
        <p role="alert" className="text-sm text-danger">
          {error}
        </p>
      )}
      <Button className="w-fit" busy={busy} onClick={() => void save()} disabled={mode === 'catalogue' && !packId}>
        Save the look
      </Button>
    </section>
  );
}
