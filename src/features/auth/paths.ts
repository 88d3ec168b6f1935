/** Where sign-in and sign-up land (spec §2), in both builds. */
export const POST_AUTH_PATH = '/app/create-image';
