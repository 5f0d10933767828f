/** The id of the <template> holding the location picker's options (LocationOptions → LocationSelector). */
export const LOCATION_OPTIONS_ID = 'location-options';
