import { Camera, Clapperboard, Compass, Heart, Images, ScanFace, Users, WandSparkles, type LucideIcon } from 'lucide-react';

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
}

/** The app's main sections, in sidebar order (product §2 app shell). */
export const NAV_ITEMS: NavItem[] = [
  { to: '/app/create-image', label: 'Create Image', icon: WandSparkles },
  { to: '/app/ai-videos', label: 'AI Videos', icon: Clapperboard },
  { to: '/app/character-training', label: 'Character Training', icon: ScanFace },
  { to: '/app/photo-shoots', label: 'Photo Shoots', icon: Camera },
  { to: '/app/my-generations', label: 'My Generations', icon: Images },
  { to: '/app/explore', label: 'Explore', icon: Compass },
  { to: '/app/favorites', label: 'Favorites', icon: Heart },
  // Teams (issue 49): the person's teams beside their personal space.
  { to: '/app/teams', label: 'Teams', icon: Users },
];

export const creditsLabel = (credits: number) => `${credits.toLocaleString('en-US')} Credits`;

// Three significant digits, truncated, never rounded up: 1,999 credits read "1.99k", not "2k".
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumSignificantDigits: 3, roundingMode: 'trunc' });
/** The balance in at most five characters, for the closed sidebar ("1.5k"). */
export const compactCredits = (credits: number) => compact.format(credits).toLowerCase();
export const profileLabel = (fullName: string | null | undefined) => fullName?.trim() || 'User Profile';
