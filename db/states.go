package db

// The states and statuses the schema's CHECK constraints allow, each with the list of its values. sqlc generates
// these columns as string: compare them as string(db.AssertionFailed), or convert the column,
// db.AssertionState(r.State), to switch on it. TestStatesMatchConstraints reads every such constraint of the
// migrated schema and fails when a list here and its constraint differ. The API's stateCode and processingStatus
// values are these values.
//
// The mode columns (live, test) are apikey.ModeLive and apikey.ModeTest; the same test holds them to their
// constraints. The pipeline step column has no constraint: its values are activities.Step*.

// One type per state column, or per family of columns that share a constraint.
type (
	AssertionState     string // assertions.state
	IssuanceStatus     string // issuances.processing_status
	NotificationStatus string // the outbox rows' status: notifications.status, notification_resends.status
	DeliveryStatus     string // webhook_deliveries.status
	ReminderState      string // expiry_reminders.state
	PublishStatus      string // badges.publish_status, programs.publish_status
)

const (
	AssertionProcessing AssertionState = "PROCESSING" // in the pipeline
	AssertionIssued     AssertionState = "ISSUED"     // v2's success, or v3's when the notification failed
	AssertionReceived   AssertionState = "RECEIVED"   // v3's success: issued and notified
	AssertionFailed     AssertionState = "FAILED"
	AssertionReissued   AssertionState = "REISSUED" // replaced by a reissue (replaced_by); its status bit is set
	AssertionRevoked    AssertionState = "REVOKED"
	AssertionExpired    AssertionState = "EXPIRED"

	IssuanceProcessing IssuanceStatus = "PROCESSING"
	IssuanceCompleted  IssuanceStatus = "COMPLETED"
	IssuanceFailed     IssuanceStatus = "FAILED"

	NotificationPending NotificationStatus = "PENDING"
	NotificationSent    NotificationStatus = "SENT"
	NotificationFailed  NotificationStatus = "FAILED"

	DeliveryPending   DeliveryStatus = "PENDING"
	DeliverySucceeded DeliveryStatus = "SUCCEEDED"
	DeliveryFailed    DeliveryStatus = "FAILED"
	DeliveryCancelled DeliveryStatus = "CANCELLED"

	ReminderClaimed   ReminderState = "CLAIMED" // due, not yet sent
	ReminderSent      ReminderState = "SENT"
	ReminderFailed    ReminderState = "FAILED"
	ReminderCancelled ReminderState = "CANCELLED"

	PublishDrafted   PublishStatus = "DRAFTED"
	PublishPublished PublishStatus = "PUBLISHED"
)

// Every value of each type, in its constraint's order.
var (
	AssertionStates = []AssertionState{AssertionProcessing, AssertionIssued, AssertionReceived, AssertionFailed,
		AssertionReissued, AssertionRevoked, AssertionExpired}
	IssuanceStatuses     = []IssuanceStatus{IssuanceProcessing, IssuanceCompleted, IssuanceFailed}
	NotificationStatuses = []NotificationStatus{NotificationPending, NotificationSent, NotificationFailed}
	DeliveryStatuses     = []DeliveryStatus{DeliveryPending, DeliverySucceeded, DeliveryFailed, DeliveryCancelled}
	ReminderStates       = []ReminderState{ReminderClaimed, ReminderSent, ReminderFailed, ReminderCancelled}
	PublishStatuses      = []PublishStatus{PublishDrafted, PublishPublished}
)
