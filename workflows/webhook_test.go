package workflows

import (
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/badged/badged/activities"
)

// TestDeliverWebhook_RefusedIsFinal: a delivery the URL policy refused (the activity's non-retryable
// ErrTypeWebhookRefused, after it finished the delivery FAILED) is one attempt, and the workflow ends with FAILED
// and no error, without the abandon step that other activity errors take.
func TestDeliverWebhook_RefusedIsFinal(t *testing.T) {
	env := newEnv(t)
	env.RegisterWorkflow(DeliverWebhook)
	in := activities.DeliverWebhookInput{DeliveryID: uuid.New()}
	env.OnActivity(a.DeliverWebhook, mock.Anything, in).Return(activities.DeliverWebhookResult{},
		temporal.NewNonRetryableApplicationError("webhook: URL not allowed: must use https", activities.ErrTypeWebhookRefused, nil)).Once()
	env.ExecuteWorkflow(DeliverWebhook, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res activities.DeliverWebhookResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, activities.DeliveryFailed, res.Status)
	env.AssertNotCalled(t, "AbandonWebhookDelivery", mock.Anything, mock.Anything)
}

// TestDeliverWebhook_OtherErrorsAreAbandoned: any other error that ends the activity (its ScheduleToClose bound,
// here a non-retryable error of another type) still records the delivery FAILED through the abandon step.
func TestDeliverWebhook_OtherErrorsAreAbandoned(t *testing.T) {
	env := newEnv(t)
	env.RegisterWorkflow(DeliverWebhook)
	in := activities.DeliverWebhookInput{DeliveryID: uuid.New()}
	env.OnActivity(a.DeliverWebhook, mock.Anything, in).Return(activities.DeliverWebhookResult{},
		temporal.NewNonRetryableApplicationError("broken", "SOMETHING_ELSE", nil)).Once()
	env.OnActivity(a.AbandonWebhookDelivery, mock.Anything, in).Return(nil).Once()
	env.ExecuteWorkflow(DeliverWebhook, in)
	require.True(t, env.IsWorkflowCompleted())
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(env.GetWorkflowError(), &appErr), "%v", env.GetWorkflowError())
}
