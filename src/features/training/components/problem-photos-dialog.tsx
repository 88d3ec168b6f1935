import { CREDIT_COSTS } from '@common/product';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import type { PhotoWithProblem } from '../hooks/use-photo-checks';
import { problemQuestion } from '../lib/problem-question';

/**
 * Start Training's one question when checked photos have problems: which photos and why, what training costs,
 * and 'Train anyway' or back to the photos (issue 54 item 5).
 */
export function ProblemPhotosDialog({
  photos,
  onTrainAnyway,
  onReview,
}: {
  photos: PhotoWithProblem[] | null;
  onTrainAnyway: () => void;
  onReview: () => void;
}) {
  return (
    <Dialog
      open={photos !== null}
      onOpenChange={(open) => !open && onReview()}
      title={photos ? problemQuestion(photos.map((p) => p.problem)) : ''}
      description={`Training uses ${CREDIT_COSTS.training} credits, and photos like these can make the character look less like the person.`}
    >
      <ul className="grid gap-1 text-sm" data-testid="problem-photos">
        {photos?.map((p) => (
          <li key={p.id}>
            <span className="font-medium">Photo {p.number}:</span> {p.badge}
          </li>
        ))}
      </ul>
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onReview}>
          Review photos
        </Button>
        <Button onClick={onTrainAnyway}>Train anyway</Button>
      </div>
    </Dialog>
  );
}
