import { Link } from 'react-router';
import { buttonClasses } from '@/components/ui/button';

/** The two ways out of a short balance, wherever it is told: a one-off pack (the credits page) or a bigger plan. */
export function TopUpActions() {
  return (
    <div className="mt-3 flex flex-wrap gap-2">
      <Link to="/app/credits" className={buttonClasses('primary', 'sm')}>
        Top up
      </Link>
      <Link to="/app/subscription" className={buttonClasses('outline', 'sm')}>
        Upgrade Plan
      </Link>
    </div>
  );
}
