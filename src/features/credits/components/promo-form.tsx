import { useState, type FormEvent } from 'react';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Input } from '@/components/ui/input';
import { useRedeemPromo } from '../api';
import { formatCredits } from '../lib/format';
import { CREDITS_TEXTS, failureMessage } from '../lib/messages';

/** 'Redeem' a promo code: the server's message when it is refused (unknown, expired, used up, already redeemed). */
export function PromoForm() {
  const [code, setCode] = useState('');
  const redeem = useRedeemPromo();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!code.trim() || redeem.isPending) return;
    redeem.mutate(code, { onSuccess: () => setCode('') });
  };

  return (
    <Card className="flex flex-col gap-4 p-5 md:p-6">
      <h2 className="text-lg font-semibold">Promo code</h2>
      <form onSubmit={submit} className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <Input
          label="Code"
          className="flex-1"
          value={code}
          autoComplete="off"
          spellCheck={false}
          maxLength={60}
          onChange={(e) => {
            setCode(e.target.value);
            if (redeem.isError) redeem.reset();
          }}
          error={redeem.isError ? failureMessage(redeem.error, CREDITS_TEXTS.promoError) : null}
        />
        <Button type="submit" className="sm:mt-[26px]" busy={redeem.isPending} disabled={!code.trim()}>
          Redeem
        </Button>
      </form>
      {redeem.isSuccess && (
        <Banner tone="green" onDismiss={() => redeem.reset()}>
          {formatCredits(redeem.data.credits)} credits added. Your balance is {formatCredits(redeem.data.balance)}.
        </Banner>
      )}
    </Card>
  );
}
