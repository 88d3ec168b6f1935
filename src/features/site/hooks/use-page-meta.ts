import { useEffect } from 'react';
import { PRODUCT_NAME } from '@common/product';

export interface PageMeta {
  /** Page name; the document title becomes '<title> · Likeness'. Omit on the landing page. */
  title?: string;
  description: string;
}

const HOME_TITLE = `${PRODUCT_NAME} — AI photos and headshots of you`;

function setMeta(attr: 'name' | 'property', key: string, content: string) {
  let tag = document.head.querySelector<HTMLMetaElement>(`meta[${attr}="${key}"]`);
  if (!tag) {
    tag = document.createElement('meta');
    tag.setAttribute(attr, key);
    document.head.appendChild(tag);
  }
  tag.content = content;
}

/** Title, description and social-card tags of a public page (index.html holds the landing's defaults). */
export function usePageMeta({ title, description }: PageMeta) {
  useEffect(() => {
    const fullTitle = title ? `${title} · ${PRODUCT_NAME}` : HOME_TITLE;
    document.title = fullTitle;
    setMeta('name', 'description', description);
    setMeta('property', 'og:title', fullTitle);
    setMeta('property', 'og:description', description);
    setMeta('property', 'og:url', window.location.origin + window.location.pathname);
    setMeta('name', 'twitter:title', fullTitle);
    setMeta('name', 'twitter:description', description);
  }, [title, description]);
}
