import { createContext, useContext } from 'react';
import type { Me } from '../api/types';

export const MeContext = createContext<Me | null>(null);

/** The signed-in key's project, scope and features; pages render only inside the signed-in frame. */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in console');
  return me;
}
