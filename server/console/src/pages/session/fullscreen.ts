import { useCallback, useEffect, useState, type RefObject } from 'react';

/**
 * Full screen for one element (the replay with its controls): whether it is shown so, and a toggle. Escape and the
 * browser's own controls leave full screen too; the state follows the document's.
 */
export function useFullscreen(element: RefObject<HTMLElement | null>): {
  fullscreen: boolean;
  toggle: () => void;
  supported: boolean;
} {
  const [fullscreen, setFullscreen] = useState(false);
  useEffect(() => {
    const sync = () =>
      setFullscreen(document.fullscreenElement !== null && document.fullscreenElement === element.current);
    document.addEventListener('fullscreenchange', sync);
    return () => document.removeEventListener('fullscreenchange', sync);
  }, [element]);
  const toggle = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void element.current?.requestFullscreen();
  }, [element]);
  return { fullscreen, toggle, supported: document.fullscreenEnabled };
}
