import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ArrowLeft, Camera } from 'lucide-react';
import { SHOOT_TEXTS, type PackView } from '@common/photo-shoots';
import { errorMessage } from '@/backend/api-error';
import { useBackend } from '@/backend/backend-context';
import { Banner } from '@/components/ui/banner';
import { Button, buttonClasses } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { PageSpinner } from '@/components/ui/spinner';
import { EmptyState, ErrorState } from '@/components/ui/states';
import type { Character } from '@/backend/port';
import { useCharacters } from '@/queries/characters';
import { cn } from '@/lib/cn';
import { startShoot, usePhotoPacks, useShoots } from '../api';
import { ShootList } from './shoot-list';

/** /app/photo-shoots: the pack grid, a pack's detail with the character picker, and the user's shoots. */
export function PhotoShootsView({ credits }: { credits: number }) {
  const packs = usePhotoPacks();
  const [params, setParams] = useSearchParams();
  const openId = params.get('pack');
  const open = packs.data?.find((p) => p.id === openId);
  // A pack's page and the grid are pages of their own and start at the top: the path stays the same, so the
  // router's ScrollToTop does not (on a phone the pack opened where the grid had been scrolled to).
  useLayoutEffect(() => {
    // A block, not an arrow's value: Chromium's scrollTo returns a promise, which React would call as the cleanup.
    window.scrollTo({ top: 0 });
  }, [openId]);

  if (packs.isPending) return <PageSpinner />;
  if (packs.isError) return <ErrorState title="Failed to load photo shoots" onRetry={() => void packs.refetch()} />;
  if (openId && open) return <PackDetail pack={open} credits={credits} onBack={() => setParams({})} />;

  return (
    <div className="flex flex-col gap-6">
      <header>
        <h1 className="text-2xl font-bold md:text-3xl">Photo Shoots</h1>
        <p className="mt-1 text-sm text-fg-muted">One click, a whole set of professional photos of your character.</p>
      </header>
      {openId && !open && <Banner tone="amber">That photo shoot is not available any more. Choose another one.</Banner>}
      <YourShoots />
      {packs.data.length === 0 ? (
        <EmptyState
          icon={<Camera className="size-10" aria-hidden />}
          title="No photo shoots to choose from"
          description="New ones are added from time to time. Please check back later."
        />
      ) : (
        <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4" aria-label="Photo shoots">
          {packs.data.map((pack) => (
            <li key={pack.id}>
              <PackCard pack={pack} onOpen={() => setParams({ pack: pack.id })} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function YourShoots() {
  const shoots = useShoots();
  if (!shoots.isError && !shoots.data?.length) return null;
  return (
    <section aria-label="Your shoots" className="flex flex-col gap-2">
      <h2 className="text-lg font-semibold">Your shoots</h2>
      {shoots.isError ? (
        <ErrorState title="Failed to load your shoots" onRetry={() => void shoots.refetch()} />
      ) : (
        <ShootList shoots={shoots.data.slice(0, 6)} />
      )}
    </section>
  );
}

function Cover({ pack, className }: { pack: PackView; className?: string }) {
  return pack.cover_url ? (
    <img src={pack.cover_url} alt="" loading="lazy" className={cn('h-full w-full object-cover', className)} />
  ) : (
    <div className={cn('flex h-full w-full items-center justify-center bg-bg-muted text-fg-subtle', className)}>
      <Camera className="size-10" aria-hidden />
    </div>
  );
}

export function PackCard({ pack, onOpen }: { pack: PackView; onOpen: () => void }) {
  return (
    <button type="button" onClick={onOpen} className="group block w-full text-left" data-testid="pack-card" aria-label={pack.name}>
      <Card className="overflow-hidden transition-shadow group-hover:shadow-lg">
        <div className="aspect-[4/5] overflow-hidden">
          <Cover pack={pack} className="transition-transform duration-300 group-hover:scale-105" />
        </div>
        <div className="flex flex-col gap-1 p-4">
          <p className="text-xs font-medium uppercase tracking-wide text-fg-subtle">{pack.category}</p>
          <h3 className="text-base font-semibold">{pack.name}</h3>
          <p className="line-clamp-2 text-sm text-fg-muted">{pack.description}</p>
          <p className="mt-2 flex justify-between text-sm font-medium">
            <span>{SHOOT_TEXTS.photos(pack.photo_count)}</span>
            <span className="text-brand">{SHOOT_TEXTS.credits(pack.cost)}</span>
          </p>
        </div>
      </Card>
    </button>
  );
}

/** The character picker: the person's COMPLETED characters, or a way to train one. */
export function CharacterPicker({
  characters,
  selected,
  onSelect,
}: {
  characters: Character[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  if (characters.length === 0) {
    return (
      <div className="flex flex-col items-start gap-3 rounded-lg border border-dashed border-border-strong p-4">
        <p className="font-semibold">{SHOOT_TEXTS.trainFirst}</p>
        <p className="text-sm text-fg-muted">A shoot photographs one of your trained characters.</p>
        <Link to="/app/character-training" className={buttonClasses('primary', 'md')}>
          {SHOOT_TEXTS.trainFirst}
        </Link>
      </div>
    );
  }
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-2 text-sm font-medium">Character</legend>
      {characters.map((c) => (
        <label
          key={c.id}
          className={cn(
            'flex cursor-pointer items-center gap-3 rounded-md border px-3 py-2 text-sm',
            selected === c.id ? 'border-brand bg-brand-soft' : 'border-border hover:bg-bg-muted',
          )}
        >
          <input type="radio" name="character" value={c.id} checked={selected === c.id} onChange={() => onSelect(c.id)} />
          <span className="font-medium">{c.character_name}</span>
          {c.trigger_word && <span className="text-fg-subtle">{c.trigger_word}</span>}
        </label>
      ))}
    </fieldset>
  );
}

function PackDetail({ pack, credits, onBack }: { pack: PackView; credits: number; onBack: () => void }) {
  const { api } = useBackend();
  const navigate = useNavigate();
  const characters = useCharacters();
  const [chosen, setChosen] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // One id per shoot the person means to start, kept until a start succeeds: a double click, or Start pressed
  // again after an answer lost on the network (the server may have made and charged the shoot), answers the
  // first shoot instead of making and charging a second. A refused start wrote nothing, so its id is free.
  const requestId = useRef(crypto.randomUUID());
  // A character trained since the list was cached (on another page) shows at once.
  const refetchCharacters = characters.refetch;
  useEffect(() => void refetchCharacters(), [refetchCharacters]);
  const list = characters.data ?? [];
  const selected = chosen ?? list[0]?.id ?? null;
  const short = credits < pack.cost;

  const start = async () => {
    if (!selected || busy) return;
    setBusy(true);
    setError(null);
    try {
      const shoot = await startShoot(api, pack.id, selected, requestId.current);
      requestId.current = crypto.randomUUID();
      void navigate(`/app/photo-shoots/${shoot.id}`);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="flex flex-col gap-6">
      <div>
        <button type="button" onClick={onBack} className="mb-3 inline-flex items-center gap-1 text-sm text-fg-muted hover:text-fg">
          <ArrowLeft className="size-4" aria-hidden /> All photo shoots
        </button>
        <p className="text-xs font-medium uppercase tracking-wide text-fg-subtle">{pack.category}</p>
        <h1 className="text-2xl font-bold md:text-3xl">{pack.name}</h1>
        <p className="mt-1 text-sm text-fg-muted">{pack.description}</p>
      </div>
      {/* On a phone the picker and Start shoot come right after the samples, not after the ten briefs; on a wider
          screen they stay beside both. */}
      <div className="grid grid-cols-1 items-start gap-6 md:grid-cols-[minmax(0,1fr)_340px] md:grid-rows-[auto_1fr]">
        <div className="grid grid-cols-3 gap-2 md:col-start-1 md:row-start-1" aria-label="Sample photos">
          {(pack.sample_urls.length ? pack.sample_urls : [null, null, null]).map((url, i) => (
            <div key={url ?? i} className="aspect-[4/5] overflow-hidden rounded-md bg-bg-muted">
              {url ? (
                <img src={url} alt={`Sample ${i + 1} of ${pack.name}`} className="h-full w-full object-cover" />
              ) : (
                <Cover pack={pack} />
              )}
            </div>
          ))}
        </div>
        <Card className="flex flex-col gap-4 p-4 md:sticky md:top-8 md:col-start-2 md:row-span-2 md:row-start-1">
          {characters.isPending ? (
            <PageSpinner />
          ) : characters.isError ? (
            <ErrorState title="Failed to load your characters" onRetry={() => void characters.refetch()} />
          ) : (
            <CharacterPicker characters={list} selected={selected} onSelect={setChosen} />
          )}
          {list.length > 0 &&
            (short ? (
              <Link to="/app/subscription" className={buttonClasses('primary', 'lg', 'w-full')}>
                {SHOOT_TEXTS.needCredits(pack.cost)}
              </Link>
            ) : (
              <Button size="lg" className="w-full" busy={busy} disabled={!selected} onClick={() => void start()}>
                {SHOOT_TEXTS.start}
                <span className="opacity-80">· {SHOOT_TEXTS.credits(pack.cost)}</span>
              </Button>
            ))}
          {error && (
            <Banner tone="red" onDismiss={() => setError(null)}>
              {error}
            </Banner>
          )}
        </Card>
        <section className="md:col-start-1 md:row-start-2">
          <h2 className="mb-2 text-lg font-semibold">{SHOOT_TEXTS.photos(pack.photo_count)} in this shoot</h2>
          <ol className="flex list-decimal flex-col gap-1.5 pl-5 text-sm text-fg-muted">
            {pack.prompts.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ol>
        </section>
      </div>
    </div>
  );
}
