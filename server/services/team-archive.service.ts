import { personSlug } from '@common/teams.ts';
import type { Db } from '../db/index.ts';
import { notFound } from '../domain/errors.ts';
import type { Logger } from '../logger.ts';
import type { StorageProvider } from '../providers/storage/index.ts';
import { teamsRepository } from '../repositories/teams.repository.ts';
import { requireMembership } from './team-access.ts';
import { storedFile, zipStream, type ZipEntry } from './zip-stream.ts';

/** A CSV cell: quoted when it holds a comma, quote or line break; a leading = + - @ is defused for spreadsheets. */
export function csvCell(value: string | null): string {
  let v = value ?? '';
  if (/^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * 'Download all': every submitted and approved headshot, named by person (`jane-doe.jpg`, `jane-doe-2.jpg` for
 * a second pick), and `team.csv` (name, e-mail, title, file). Streamed: one photo is open at a time, so memory
 * stays flat whatever the team's size.
 */
export function createTeamArchiveService(deps: { db: Db; storage: StorageProvider; logger: Logger }) {
  return {
    async archive(userId: string, teamId: string): Promise<{ body: ReadableStream<Uint8Array>; filename: string }> {
      await requireMembership(deps.db, userId, teamId, 'lead');
      const team = (await teamsRepository.findTeam(deps.db, teamId))!;
      const members = new Map((await teamsRepository.dashboard(deps.db, teamId)).map((m) => [m.userId, m]));
      const photos = await teamsRepository.submittedPhotos(deps.db, teamId);
      if (photos.length === 0) throw notFound('Nobody has submitted a headshot yet.');
      const used = new Set<string>(['team.csv']);
      const csv: string[] = ['name,email,title,file'];
      function* entries(): Generator<ZipEntry> {
        for (const p of photos) {
          const m = members.get(p.userId);
          const slug = personSlug(m?.name ?? null, m?.email ?? null);
          const ext = p.outputFormat === 'png' ? 'png' : 'jpg';
          let name = `${slug}.${ext}`;
          for (let n = 2; used.has(name); n++) name = `${slug}-${n}.${ext}`;
          used.add(name);
          csv.push([m?.name ?? null, m?.email ?? null, m?.title ?? null, name].map(csvCell).join(','));
          yield { name, content: storedFile(deps.storage, p.imageUrl) };
        }
        yield { name: 'team.csv', content: `${csv.join('\r\n')}\r\n`, compress: true };
      }
      const body = zipStream(entries(), (err) => deps.logger.error({ err, teamId }, 'a team download was cut short'));
      return { body, filename: `${personSlug(team.name, null)}-headshots.zip` };
    },
  };
}
export type TeamArchiveService = ReturnType<typeof createTeamArchiveService>;
