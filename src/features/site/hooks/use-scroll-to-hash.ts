import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { LAYOUT } from '@common/product';

const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/** Scrolls so the section's top sits LAYOUT.anchorOffsetPx below the viewport top (clear of the sticky header). */
export function scrollToSection(id: string) {
  const behavior: ScrollBehavior = reducedMotion() ? 'auto' : 'smooth';
  const el = id ? document.getElementById(id) : null;
  const top = el ? el.getBoundingClientRect().top + window.scrollY - LAYOUT.anchorOffsetPx : 0;
  window.scrollTo({ top: Math.max(0, top), behavior });
}

/**
 * Scrolls to the URL hash on every navigation to the landing page: links are plain '/#pricing' links, so they
 * set the hash, work from any page (the router brings you here first) and on back/forward.
 */
export function useScrollToHash() {
  const { hash, key } = useLocation();
  useEffect(() => {
    // Next frame: after the route's layout (and a just-closed mobile menu's scroll lock) has settled.
    const frame = requestAnimationFrame(() => scrollToSection(decodeURIComponent(hash.slice(1))));
    return () => cancelAnimationFrame(frame);
  }, [hash, key]);
}
