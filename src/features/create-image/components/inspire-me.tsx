import { Lightbulb } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { DropdownMenu } from '@/components/ui/dropdown-menu';

/** Three fixed sample prompts (product §2 'Inspire Me'). */
export const SAMPLE_PROMPTS = [
  'Professional corporate headshot, soft studio lighting, neutral grey backdrop, navy blazer, confident natural smile, sharp focus on the eyes, photorealistic',
  'Cinematic portrait on a rain-soaked Tokyo street at night, neon reflections on wet pavement, shallow depth of field, 85mm lens, teal and magenta light',
  'Golden-hour portrait in a sunflower field, warm backlight, wind in the hair, linen shirt, candid laughter, film photography look with gentle grain',
] as const;

const shorten = (text: string) => (text.length > 64 ? `${text.slice(0, 62).trimEnd()}…` : text);

export function InspireMe({ onPick }: { onPick: (prompt: string) => void }) {
  return (
    <DropdownMenu
      label="Sample prompts"
      align="start"
      trigger={
        <Button variant="outline" size="sm">
          <Lightbulb className="size-4" aria-hidden />
          Inspire Me
        </Button>
      }
      items={SAMPLE_PROMPTS.map((prompt) => ({
        label: (
          <span title={prompt} className="max-w-72 whitespace-normal">
            {shorten(prompt)}
          </span>
        ),
        onSelect: () => onPick(prompt),
      }))}
    />
  );
}
