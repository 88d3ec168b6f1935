import { useEffect } from 'react';
import { PRODUCT_NAME } from '@common/product';

/** Sets the document title as '<title> · Likeness' (or the product name alone). */
export function usePageTitle(title?: string) {
  useEffect(() => {
    document.title = title ? `${title} · ${PRODUCT_NAME}` : `${PRODUCT_NAME} — AI photos and headshots of you`;
  }, [title]);
}
