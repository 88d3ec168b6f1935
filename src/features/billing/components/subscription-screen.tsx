import { useSearchParams } from 'react-router';
import { Coins, Loader2 } from 'lucide-react';
import { PLANS, activePlanId, planButtonLabel, planById, type PlanId } from '@common/plans';
import { CREDIT_COSTS } from '@common/product';
import { Banner } from '@/components/ui/banner';
import { useMe } from '@/session/api';
import { openPortal, useCheckout, usePortalLink, useSubscription } from '../api';
import { BILLING_MESSAGES } from '../lib/checkout-messages';
import { useOnlineStatus } from '../hooks/use-online-status';
import { ActivePlanPanel } from './active-plan-panel';
import { PlanCard } from './plan-card';

/**
 * /app/subscription (product §2/§4): an inactive user picks a plan and goes to checkout; an active user manages
 * everything in the payment provider's customer portal. Status and plan come from the live user record
 * (subscription events update it); the subscription read adds the customer id and the period end.
 */
export function SubscriptionScreen() {
  const me = useMe();
  const subscription = useSubscription();
  const online = useOnlineStatus();
  const checkout = useCheckout();
  const [params, setParams] = useSearchParams();

  const currentPlan = activePlanId(me.subscription_status, me.subscription_plan);
  const active = currentPlan !== null;
  const customerId = subscription.data?.customer_id ?? me.creem_customer_id;
  const portalLink = usePortalLink(me.subscription_status, customerId);
  const returnedFromCheckout = params.get('checkout') === 'success';
  const checkoutCancelled = params.get('checkout') === 'cancelled';

  const labelOf = (planId: PlanId) => {
    if (!online) return 'Offline';
    if (checkout.processingPlan === planId) return 'Processing...';
    return planButtonLabel(planId, currentPlan);
  };
  const select = (planId: PlanId) => {
    if (active) {
      if (portalLink) openPortal(portalLink);
      return;
    }
    void checkout.start(planId, { userId: me.id, email: me.email }, online);
  };
  const dismissReturnNotice = () =>
    setParams(
      (p) => {
        p.delete('checkout');
        return p;
      },
      { replace: true },
    );

  return (
    <div className="flex flex-col gap-6 md:gap-8">
      <header className="flex flex-col gap-3 md:flex-row md:items-end md:justify-between">
        <div>
          <h1 className="text-2xl font-bold md:text-3xl">{active ? 'Manage Your Plan' : 'Choose Your Plan'}</h1>
          <p className="mt-1.5 text-fg-muted">
            {active
              ? 'Change or cancel your subscription in the customer portal. Credits arrive with every monthly payment.'
              : 'Pick a monthly plan to get credits for generating images and training characters.'}
          </p>
        </div>
        <p className="inline-flex w-fit items-center gap-2 rounded-full border border-border bg-bg px-3.5 py-1.5 text-sm font-semibold shadow-card">
          <Coins className="size-4 text-warning" aria-hidden />
          <span data-testid="balance">{me.credits.toLocaleString('en-US')} credits available</span>
        </p>
      </header>

      <div className="flex flex-col gap-3 empty:hidden">
        {!online && <Banner tone="amber">{BILLING_MESSAGES.offlineBanner}</Banner>}
        {subscription.isError && <Banner tone="red">{BILLING_MESSAGES.userLookup}</Banner>}
        {checkout.error && (
          <Banner tone="red" onDismiss={checkout.clearError}>
            {checkout.error}
          </Banner>
        )}
        {checkoutCancelled && (
          <Banner tone="blue" title="Checkout cancelled" onDismiss={dismissReturnNotice}>
            No payment was made. Pick a plan whenever you are ready.
          </Banner>
        )}
        {returnedFromCheckout &&
          (active ? (
            <Banner
              tone="green"
              title={`Payment received — your ${planById(currentPlan).name} plan is active`}
              onDismiss={dismissReturnNotice}
            >
              Its credits have been added to your balance.
            </Banner>
          ) : (
            <Banner
              tone="green"
              title="Payment received — your credits are on their way"
              action={<Loader2 className="size-5 shrink-0 animate-spin" aria-label="Waiting for confirmation" />}
            >
              This page updates by itself as soon as the payment is confirmed.
            </Banner>
          ))}
      </div>

      {active && (
        <ActivePlanPanel
          plan={planById(currentPlan)}
          currentPeriodEnd={subscription.data?.current_period_end ?? null}
          cancelAtPeriodEnd={subscription.data?.cancel_at_period_end ?? false}
          manageLabel={online ? (subscription.data?.cancel_at_period_end ? 'Resume Subscription' : 'Manage Subscription') : 'Offline'}
          manageDisabled={!online || !portalLink}
          onManage={() => portalLink && openPortal(portalLink)}
        />
      )}

      <section aria-label="Plans" className="grid gap-5 lg:grid-cols-3 lg:gap-6">
        {PLANS.map((plan) => (
          <PlanCard
            key={plan.id}
            plan={plan}
            label={labelOf(plan.id)}
            current={plan.id === currentPlan}
            processing={checkout.processingPlan === plan.id}
            disabled={!online || (active ? !portalLink : checkout.processingPlan !== null)}
            onSelect={() => select(plan.id)}
          />
        ))}
      </section>

      <p className="text-center text-sm text-fg-muted">
        Prices in USD per month. An image costs {CREDIT_COSTS.generation} credits; a character training costs {CREDIT_COSTS.training}.
      </p>
    </div>
  );
}
